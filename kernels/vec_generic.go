package kernels

// dotGeneric is the reference Dot: one sequential fp32 sum.
func dotGeneric(a, b []float32) float32 {
	var s float32
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// axpyGeneric is the reference Axpy: y[i] += a·x[i].
func axpyGeneric(y []float32, a float32, x []float32) {
	for i := range y {
		y[i] += a * x[i]
	}
}

// addGeneric is the reference Add: y[i] += x[i].
func addGeneric(y, x []float32) {
	for i := range y {
		y[i] += x[i]
	}
}
