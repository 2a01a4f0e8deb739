package perf

import "github.com/klauspost/cpuid/v2"

// useAVX2 selects the vector read loop (Haswell and later, Zen and later).
var useAVX2 = cpuid.CPU.Supports(cpuid.AVX2)

// readSumAVX2 returns Σ p[i] (mod 2⁶⁴) for i < n, n a multiple of 32.
//
//go:noescape
func readSumAVX2(p *uint64, n int) uint64
