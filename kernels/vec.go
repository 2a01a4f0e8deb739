package kernels

// Dot returns Σ a[i]·b[i] over len(a) (b at least as long).
func Dot(a, b []float32) float32 {
	if len(b) < len(a) {
		panic("kernels: Dot: b shorter than a")
	}
	return cur.dot(a, b[:len(a)])
}

// Axpy computes y[i] += a·x[i] for i < len(y) (x at least as long).
func Axpy(y []float32, a float32, x []float32) {
	if len(x) < len(y) {
		panic("kernels: Axpy: x shorter than y")
	}
	cur.axpy(y, a, x[:len(y)])
}

// Add computes y[i] += x[i] for i < len(y) (x at least as long).
func Add(y, x []float32) {
	if len(x) < len(y) {
		panic("kernels: Add: x shorter than y")
	}
	cur.add(y, x[:len(y)])
}
