package kernels

import "math"

// The element-wise ops below are a small share of a forward pass (O(d) per
// token against O(d²) for the products), so they stay in plain Go; only exp
// is made cheap, since softmax and SiLU call it once per element.

// RMSNorm computes out[i] = x[i] / sqrt(mean(x²) + eps) · weight[i].
// The sum of squares is kept in float64: hidden states of Qwen2 reach 1e4.
func RMSNorm(out, x, weight []float32, eps float32) {
	if len(out) < len(x) || len(weight) < len(x) {
		panic("kernels: RMSNorm: out or weight shorter than x")
	}
	if len(x) == 0 {
		return
	}
	var ss float64
	for _, v := range x {
		ss += float64(v) * float64(v)
	}
	inv := float32(1 / math.Sqrt(ss/float64(len(x))+float64(eps)))
	for i, v := range x {
		out[i] = v * inv * weight[i]
	}
}

// Softmax replaces x by exp(x - max) / Σ exp(x - max).
func Softmax(x []float32) {
	if len(x) == 0 {
		return
	}
	m := x[0]
	for _, v := range x {
		m = max(m, v)
	}
	var s float32
	for i, v := range x {
		e := exp32(v - m)
		x[i] = e
		s += e
	}
	inv := 1 / s
	for i := range x {
		x[i] *= inv
	}
}

// SiLUMul computes out[i] = silu(gate[i])·up[i], silu(g) = g/(1+e^-g).
func SiLUMul(out, gate, up []float32) {
	if len(out) < len(gate) || len(up) < len(gate) {
		panic("kernels: SiLUMul: out or up shorter than gate")
	}
	for i, g := range gate {
		out[i] = g / (1 + exp32(-g)) * up[i]
	}
}

// RoPE rotates one head vector x (length d) in half-split pairs
// (x[i], x[i+d/2]) by the angles whose cos and sin (length d/2) are given:
// x[i] ← x[i]·cos[i] − x[i+d/2]·sin[i]; x[i+d/2] ← x[i+d/2]·cos[i] + x[i]·sin[i].
func RoPE(x, cos, sin []float32) {
	h := len(x) / 2
	if len(cos) < h || len(sin) < h {
		panic("kernels: RoPE: cos or sin shorter than len(x)/2")
	}
	for i := range h {
		a, b := x[i], x[i+h]
		x[i] = a*cos[i] - b*sin[i]
		x[i+h] = b*cos[i] + a*sin[i]
	}
}
