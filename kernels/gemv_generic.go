package kernels

// matVecBF16Generic is the reference MatVecBF16: out[r] = Σ_c w[r·cols+c]·x[c].
func matVecBF16Generic(out []float32, w []BF16, x []float32) {
	cols := len(x)
	for r := range out {
		out[r] = dotBF16Generic(w[r*cols:r*cols+cols], x)
	}
}

// matVecF32Generic is the reference MatVecF32.
func matVecF32Generic(out []float32, w []float32, x []float32) {
	cols := len(x)
	for r := range out {
		out[r] = dotGeneric(w[r*cols:r*cols+cols], x)
	}
}

// dotBF16Generic returns Σ w[i]·x[i] over len(w), widening each weight.
func dotBF16Generic(w []BF16, x []float32) float32 {
	var s float32
	for i, v := range w {
		s += v.Float32() * x[i]
	}
	return s
}
