package perf

import "github.com/klauspost/cpuid/v2"

// useAVX2 and useAVX512 select the vector read loop (AVX2: Haswell and
// later, Zen and later; AVX-512F: Skylake-X, Zen 4 and later).
var (
	useAVX2   = cpuid.CPU.Supports(cpuid.AVX2)
	useAVX512 = cpuid.CPU.Supports(cpuid.AVX512F)
)

// readSumAVX2 returns Σ p[i] (mod 2⁶⁴) for i < n, n a multiple of 32.
//
//go:noescape
func readSumAVX2(p *uint64, n int) uint64

// readSumAVX512 is readSumAVX2 with 512-bit loads.
//
//go:noescape
func readSumAVX512(p *uint64, n int) uint64
