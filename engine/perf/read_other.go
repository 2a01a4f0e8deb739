//go:build !amd64

package perf

const useAVX2 = false

func readSumAVX2(p *uint64, n int) uint64 { panic("perf: no AVX2 read loop on this architecture") }
