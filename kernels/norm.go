package kernels

// The element-wise ops of a forward pass. They are O(d) per token against
// O(d²) for the products, but softmax runs over every attention row (O(T²)
// per layer) and softmax and SiLU call exp once per element: on a 512–1,194
// token prefill the scalar loops took ≈28 % (Softmax) and ≈12 % (SiLUMul)
// of CPU time. So they dispatch like the products: readable loops in
// norm_generic.go, a vector exp and AVX2 / AVX-512 passes in norm_amd64.s.

// RMSNorm computes out[i] = x[i] / sqrt(mean(x²) + eps) · weight[i].
// The sum of squares is kept in float64: hidden states of Qwen2 reach 1e4.
func RMSNorm(out, x, weight []float32, eps float32) {
	if len(out) < len(x) || len(weight) < len(x) {
		panic("kernels: RMSNorm: out or weight shorter than x")
	}
	if len(x) == 0 {
		return
	}
	cur.rmsNorm(out[:len(x)], x, weight[:len(x)], eps)
}

// Softmax replaces x by exp(x - max) / Σ exp(x - max).
//
// -Inf entries (masked scores) give exactly 0. A NaN or +Inf anywhere, or
// a row that is all -Inf, makes the whole row NaN, at every level.
func Softmax(x []float32) {
	if len(x) == 0 {
		return
	}
	cur.softmax(x)
}

// SiLUMul computes out[i] = silu(gate[i])·up[i], silu(g) = g/(1+e^-g).
// out may be gate itself. For g below about -88.4, e^-g overflows to +Inf
// and silu(g) is -0, never NaN; a NaN gate or up gives NaN.
func SiLUMul(out, gate, up []float32) {
	if len(out) < len(gate) || len(up) < len(gate) {
		panic("kernels: SiLUMul: out or up shorter than gate")
	}
	cur.siluMul(out[:len(gate)], gate, up[:len(gate)])
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
