package kernels

// MatVecBF16 computes out[r] = Σ_c w[r·cols+c]·x[c] for r < len(out),
// with cols = len(x). w is len(out) × cols, row-major.
//
// This is decode's hot loop: every weight is read once per token, so the
// SIMD versions are built to stream w at memory bandwidth (row after row,
// in address order) and widen bf16 → fp32 exactly, a pair of weights at a
// time by shift and mask against x split into even and odd halves; x is
// used unrounded.
func MatVecBF16(out []float32, w []BF16, x []float32) {
	if len(w) < len(out)*len(x) {
		panic("kernels: MatVecBF16: w too short")
	}
	cur.matVecBF16(out, w[:len(out)*len(x)], x)
}

// MatVecF32 is MatVecBF16 for float32 weights.
func MatVecF32(out []float32, w []float32, x []float32) {
	if len(w) < len(out)*len(x) {
		panic("kernels: MatVecF32: w too short")
	}
	cur.matVecF32(out, w[:len(out)*len(x)], x)
}
