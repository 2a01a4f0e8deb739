//go:build amd64 && !purego

package kernels

// Stubs in peak_amd64.s: iters rounds of 12 register-resident FMAs
// (VDPBF16PS for fmaPeakBF16). iters > 0.

//go:noescape
func fmaPeakAVX2(iters int)

//go:noescape
func fmaPeakAVX512(iters int)

//go:noescape
func fmaPeakBF16(iters int)

func fmaPeakAVX2Loop(iters int) int64   { fmaPeakAVX2(iters); return int64(iters) * 12 * 8 * 2 }
func fmaPeakAVX512Loop(iters int) int64 { fmaPeakAVX512(iters); return int64(iters) * 12 * 16 * 2 }
func fmaPeakBF16Loop(iters int) int64   { fmaPeakBF16(iters); return int64(iters) * 12 * 16 * 4 }

// Stubs in peak_amd64.s: iters rounds of the integer tiles' instructions
// in 12 register-resident chains (int8PeakAVX2: VPMADDUBSW + VPADDW;
// int8PeakAVXVNNI: VEX VPDPBUSD), 32 multiply-adds (64 operations) a
// chain and round.

//go:noescape
func int8PeakAVX2(iters int)

//go:noescape
func int8PeakAVXVNNI(iters int)

func int8PeakAVX2Loop(iters int) int64    { int8PeakAVX2(iters); return int64(iters) * 12 * 64 }
func int8PeakAVXVNNILoop(iters int) int64 { int8PeakAVXVNNI(iters); return int64(iters) * 12 * 64 }
