package kernels

// FMAPeakLoop runs iters rounds of independent fused multiply-adds held in
// registers (no memory traffic) on the active level and returns the floating
// point operations done: 2 per fp32 lane per FMA. Divided by the elapsed
// time it gives the core's compute peak for `loupe membw`. At AVX512BF16 the
// loop is VDPBF16PS, as prefill uses it: 4 operations per fp32 lane (two
// products, two additions); at NEONBF16 and NEONI8MM BFMMLA, 32 operations
// an instruction.
func FMAPeakLoop(iters int) (flops int64) {
	if iters <= 0 {
		return 0
	}
	return cur.fmaPeak(iters)
}

// FP32PeakLoop is FMAPeakLoop for products computed in fp32: the same
// loop at every level but AVX512BF16, where it runs AVX-512's FMA loop
// instead of VDPBF16PS (NEONBF16, NEONI8MM: NEON's FMLA loop instead of
// BFMMLA). Prefill's fp32 products (`auto` on dense models,
// `exact`) are bounded by this one; on some CPUs VDPBF16PS does fewer
// operations a cycle than FMA, on others more.
func FP32PeakLoop(iters int) (flops int64) {
	if iters <= 0 {
		return 0
	}
	if cur.fp32Peak != nil {
		return cur.fp32Peak(iters)
	}
	return cur.fmaPeak(iters)
}

// PeakLoopName names the instruction FMAPeakLoop times at the active
// level: "fp32 FMA", or "bf16 VDPBF16PS" at AVX512BF16, "bf16 BFMMLA" at
// NEONBF16 and NEONI8MM.
func PeakLoopName() string {
	switch {
	case cur.fp32Peak == nil:
		return "fp32 FMA"
	case active == NEONBF16 || active == NEONI8MM:
		return "bf16 BFMMLA"
	}
	return "bf16 VDPBF16PS"
}

var peakSink float32

// fmaPeakGeneric is the scalar peak: 8 independent multiply-add chains so
// the loop is bound by throughput, not latency.
func fmaPeakGeneric(iters int) int64 {
	a0, a1, a2, a3 := float32(0), float32(1), float32(2), float32(3)
	a4, a5, a6, a7 := float32(4), float32(5), float32(6), float32(7)
	const m, c = 0.999, 1e-3
	for range iters {
		a0, a1, a2, a3 = a0*m+c, a1*m+c, a2*m+c, a3*m+c
		a4, a5, a6, a7 = a4*m+c, a5*m+c, a6*m+c, a7*m+c
	}
	peakSink = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7
	return int64(iters) * 8 * 2
}
