package perf

import "github.com/klauspost/cpuid/v2"

// useAVX2 and useAVX512 select the vector read loop (AVX2: Haswell and
// later, Zen and later; AVX-512F: Skylake-X, Zen 4 and later).
var (
	useAVX2   = cpuid.CPU.Supports(cpuid.AVX2)
	useAVX512 = cpuid.CPU.Supports(cpuid.AVX512F)
)

// readSumAVX2 returns Σ (mod 2⁶⁴) of the n words at p and at p plus 1, 2
// and 3 times stride bytes, read as four streams; n a multiple of 8.
//
//go:noescape
func readSumAVX2(p *uint64, n, stride int) uint64

// readSumAVX512 is readSumAVX2 with 512-bit loads.
//
//go:noescape
func readSumAVX512(p *uint64, n, stride int) uint64
