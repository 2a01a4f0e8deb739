package kernels

// matMulBF16Generic is the reference MatMulBF16: one MatVec per token.
func matMulBF16Generic(_ *Workspace, out []float32, ldOut int, w []BF16, x []float32, n, cols int) {
	rows := len(w) / cols
	for t := range n {
		matVecBF16Generic(out[t*ldOut:t*ldOut+rows], w, x[t*cols:t*cols+cols])
	}
}

// matMulF32Generic is the reference MatMulF32.
func matMulF32Generic(out []float32, ldOut int, w []float32, x []float32, n, cols int) {
	rows := len(w) / cols
	for t := range n {
		matVecF32Generic(out[t*ldOut:t*ldOut+rows], w, x[t*cols:t*cols+cols])
	}
}
