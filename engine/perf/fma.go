package perf

// fmaLoop is the compute probe's inner loop: iters rounds of independent
// multiply-adds in registers, returning the operations done.
var fmaLoop = fmaLoopGeneric

var fmaSink float32

// fmaLoopGeneric is the scalar fallback: eight independent a·m+c chains, so
// the loop is bound by throughput rather than latency; 2 operations each.
func fmaLoopGeneric(iters int) int64 {
	a0, a1, a2, a3 := float32(0), float32(1), float32(2), float32(3)
	a4, a5, a6, a7 := float32(4), float32(5), float32(6), float32(7)
	const m, c = 0.999, 1e-3
	for range iters {
		a0, a1, a2, a3 = a0*m+c, a1*m+c, a2*m+c, a3*m+c
		a4, a5, a6, a7 = a4*m+c, a5*m+c, a6*m+c, a7*m+c
	}
	fmaSink = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7
	return int64(iters) * 8 * 2
}
