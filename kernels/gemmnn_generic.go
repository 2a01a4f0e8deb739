package kernels

// matMulNNGeneric is the reference MatMulNN: each output row is built up
// as out[t] += x[t][c]·B[c] over c in order, so B is read along its rows.
func matMulNNGeneric(out []float32, ldOut int, x []float32, ldx int, b []float32, ldb int, n, k, m int) {
	for t := range n {
		o := out[t*ldOut : t*ldOut+m]
		clear(o)
		for c := range k {
			xc, bc := x[t*ldx+c], b[c*ldb:c*ldb+m]
			for j := range o {
				o[j] += xc * bc[j]
			}
		}
	}
}
