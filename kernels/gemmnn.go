package kernels

// MatMulNN computes out[t·ldOut+j] = Σ_{c<k} x[t·ldx+c]·b[c·ldb+j] for
// t < n and j < m: Y = X·B with X n × k (row stride ldx) and B k × m
// row-major (row stride ldb), overwriting out (row stride ldOut). k = 0
// sets the n × m outputs to zero.
//
// Attention uses it twice per head: scores QKᵀ with B = Kᵀ (d × nk: k = d,
// m = nk) and the weighted values PV with B = V (nk × d: k = nk, m = d).
// Unlike MatMulF32, B is read along its rows, so neither needs a transpose.
func MatMulNN(out []float32, ldOut int, x []float32, ldx int, b []float32, ldb int, n, k, m int) {
	if n <= 0 || m <= 0 {
		return
	}
	checkMatMulNN(len(out), ldOut, len(x), ldx, len(b), ldb, n, k, m)
	if k == 0 {
		for t := range n {
			clear(out[t*ldOut : t*ldOut+m])
		}
		return
	}
	cur.matMulNN(out, ldOut, x, ldx, b, ldb, n, k, m)
}

// checkMatMulNN panics on shapes that would read or write out of bounds or
// write one output twice (n, m > 0, k ≥ 0): a programming error in the
// caller. Input strides may be smaller than a row (ldx = 0 repeats a row).
func checkMatMulNN(lenOut, ldOut, lenX, ldx, lenB, ldb, n, k, m int) {
	switch {
	case k < 0 || ldx < 0 || ldb < 0:
		panic("kernels: MatMulNN: negative k, ldx or ldb")
	case n > 1 && ldOut < m:
		panic("kernels: MatMulNN: ldOut smaller than m")
	case lenOut < (n-1)*ldOut+m:
		panic("kernels: MatMulNN: out shorter than (n-1)·ldOut+m")
	case k > 0 && lenX < (n-1)*ldx+k:
		panic("kernels: MatMulNN: x shorter than (n-1)·ldx+k")
	case k > 0 && lenB < (k-1)*ldb+m:
		panic("kernels: MatMulNN: b shorter than (k-1)·ldb+m")
	}
}
