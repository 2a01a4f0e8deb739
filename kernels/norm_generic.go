package kernels

import "math"

// Reference loops of the element-wise family (norm.go). The SIMD levels run
// the same passes on whole vectors and finish the tails with these.

// rmsNormGeneric is the reference RMSNorm, x non-empty.
func rmsNormGeneric(out, x, weight []float32, eps float32) {
	rmsScaleGeneric(out, x, weight, rmsInv(sumSquaresGeneric(x), len(x), eps))
}

// sumSquaresGeneric returns Σ x[i]² in float64 (each square is exact).
func sumSquaresGeneric(x []float32) float64 {
	var ss float64
	for _, v := range x {
		ss += float64(v) * float64(v)
	}
	return ss
}

// rmsInv returns 1 / sqrt(ss/n + eps).
func rmsInv(ss float64, n int, eps float32) float32 {
	return float32(1 / math.Sqrt(ss/float64(n)+float64(eps)))
}

// rmsScaleGeneric computes out[i] = x[i]·inv·w[i], rounding after each product.
func rmsScaleGeneric(out, x, w []float32, inv float32) {
	for i, v := range x {
		out[i] = v * inv * w[i]
	}
}

// softmaxGeneric is the reference Softmax, x non-empty: a max pass, an
// exp-and-sum pass, a scale pass.
func softmaxGeneric(x []float32) {
	m := maxGeneric(x[0], x)
	s := expSubSumGeneric(x, m)
	scaleGeneric(x, 1/s)
}

// maxGeneric returns the largest of m and x[i]; NaN wins.
func maxGeneric(m float32, x []float32) float32 {
	for _, v := range x {
		m = max(m, v)
	}
	return m
}

// expSubSumGeneric replaces x[i] by e^(x[i]−m) and returns their sum.
func expSubSumGeneric(x []float32, m float32) float32 {
	var s float32
	for i, v := range x {
		e := exp32(v - m)
		x[i] = e
		s += e
	}
	return s
}

// scaleGeneric computes x[i] *= a.
func scaleGeneric(x []float32, a float32) {
	for i := range x {
		x[i] *= a
	}
}

// siluMulGeneric is the reference SiLUMul: out[i] = g/(1+e^-g)·up[i].
func siluMulGeneric(out, gate, up []float32) {
	for i, g := range gate {
		out[i] = g / (1 + exp32(-g)) * up[i]
	}
}
