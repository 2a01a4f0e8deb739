package perf

// read_amd64.s, the read probe's AVX2 and AVX-512 loops, is written by
// tools/quantasm/read_amd64.py from one description of both levels.
// `make generate` runs it; TestGeneratedAssembly checks the file against
// what the generator writes today.
//
//go:generate sh -c "python3 ../../tools/quantasm/read_amd64.py > read_amd64.s"
