package kernels

// The generated assembly: each generator in tools/quantasm is named for the
// file it writes; tools/neonasm/gen.py writes the arm64 files, one argument
// a file. The AVX2 and AVX-512 twins of peak, vec, norm, gemv and the
// prefill tiles come from one description each, written for both levels
// by tools/quantasm/avx.py.
// `make generate` (go generate ./kernels) runs them all;
// TestGeneratedAssembly checks every file below against its generator, and
// that every .s marked as generated is listed here.
//
//go:generate sh -c "python3 ../tools/quantasm/quant_amd64.py > quant_amd64.s"
//go:generate sh -c "python3 ../tools/quantasm/quant8_amd64.py > quant8_amd64.s"
//go:generate sh -c "python3 ../tools/quantasm/quant8tile_amd64.py > quant8tile_amd64.s"
//go:generate sh -c "python3 ../tools/quantasm/gemvrows_amd64.py > gemvrows_amd64.s"
//go:generate sh -c "python3 ../tools/quantasm/gemvf16_amd64.py > gemvf16_amd64.s"
//go:generate sh -c "python3 ../tools/quantasm/peak_amd64.py > peak_amd64.s"
//go:generate sh -c "python3 ../tools/quantasm/vec_amd64.py > vec_amd64.s"
//go:generate sh -c "python3 ../tools/quantasm/norm_amd64.py > norm_amd64.s"
//go:generate sh -c "python3 ../tools/quantasm/gemv_amd64.py > gemv_amd64.s"
//go:generate sh -c "python3 ../tools/quantasm/gemm16_amd64.py > gemm16_amd64.s"
//go:generate sh -c "python3 ../tools/quantasm/gemm_amd64.py > gemm_amd64.s"
//go:generate sh -c "python3 ../tools/quantasm/gemmnn_amd64.py > gemmnn_amd64.s"
//go:generate sh -c "python3 ../tools/neonasm/gen.py gemv > gemv_arm64.s"
//go:generate sh -c "python3 ../tools/neonasm/gen.py quant > quant8_arm64.s"
//go:generate sh -c "python3 ../tools/neonasm/gen.py norm > norm_arm64.s"
