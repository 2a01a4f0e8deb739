package perf

import "loupe/kernels"

// useAVX2 and useAVX512 select the vector read loop (AVX2: Haswell and
// later, Zen and later; AVX-512: Skylake-X, Zen 4 and later) as the
// kernels' levels do, so LOUPE_CPU_DISABLE=AVX512F probes with the loop
// of a CPU without AVX-512 too.
var (
	useAVX2   = kernels.Supported(kernels.AVX2)
	useAVX512 = kernels.Supported(kernels.AVX512)
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
