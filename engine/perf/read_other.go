//go:build !amd64

package perf

const useAVX2, useAVX512 = false, false

func readSumAVX2(p *uint64, n, stride int) uint64 {
	panic("perf: no AVX2 read loop on this architecture")
}

func readSumAVX512(p *uint64, n, stride int) uint64 {
	panic("perf: no AVX-512 read loop on this architecture")
}
