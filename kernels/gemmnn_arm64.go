//go:build !purego

package kernels

// gemmNN4x16NEON is in gemv_arm64.s (tools/neonasm/gen.py): a 4 × 16 tile
// of MatMulNN, k ≥ 1, ldx 0 allowed.
//
//go:noescape
func gemmNN4x16NEON(out *float32, ldo int, x *float32, ldx int, b *float32, ldb int, k int)

// matMulNNNEON runs MatMulNN in tiles of 4 tokens × 16 columns; the last
// tokens (fewer than 4) one at a time with ldx = 0 into a scratch, the
// last columns (fewer than 16) in Go. Each output is the same fused chain
// over c wherever it falls.
func matMulNNNEON(out []float32, ldOut int, x []float32, ldx int, b []float32, ldb int, n, k, m int) {
	m16 := m &^ 15
	var tmp [64]float32
	for t := 0; t < n; {
		nt := 4
		if n-t < 4 {
			nt = 1
		}
		for j := 0; j < m16; j += 16 {
			if nt == 4 {
				gemmNN4x16NEON(&out[t*ldOut+j], ldOut, &x[t*ldx], ldx, &b[j], ldb, k)
				continue
			}
			gemmNN4x16NEON(&tmp[0], 16, &x[t*ldx], 0, &b[j], ldb, k)
			copy(out[t*ldOut+j:t*ldOut+j+16], tmp[:16])
		}
		if m16 < m {
			for i := range nt {
				matMulNNCols(out[(t+i)*ldOut:], x[(t+i)*ldx:], b, ldb, k, m16, m)
			}
		}
		t += nt
	}
}

// matMulNNCols is matMulNNGeneric for one token and the columns j0 … m-1.
func matMulNNCols(o, x, b []float32, ldb, k, j0, m int) {
	clear(o[j0:m])
	for c := range k {
		xc, bc := x[c], b[c*ldb:]
		for j := j0; j < m; j++ {
			o[j] += xc * bc[j]
		}
	}
}
