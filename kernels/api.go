package kernels

// This file is the contract the engine codes against. The kernels work
// replaces the bodies with dispatch to SIMD implementations; the signatures
// and the math in the doc comments stay.

// Level is a kernel implementation level.
type Level int

const (
	Generic    Level = iota // pure Go
	AVX2                    // AVX2 + FMA
	AVX512                  // AVX-512F
	AVX512BF16              // AVX-512F + AVX512_BF16 (VDPBF16PS)
)

var levelNames = [...]string{"generic", "avx2", "avx512", "avx512bf16"}

func (l Level) String() string {
	if l < 0 || int(l) >= len(levelNames) {
		return "unknown"
	}
	return levelNames[l]
}

// ParseLevel reads a level name; "auto" gives Best().
func ParseLevel(s string) (Level, bool) {
	if s == "auto" || s == "" {
		return Best(), true
	}
	for i, n := range levelNames {
		if n == s {
			return Level(i), true
		}
	}
	return 0, false
}

var active = Generic

// Best reports the fastest level this CPU and OS support.
func Best() Level { return Generic }

// Supported reports whether this CPU can run level l.
func Supported(l Level) bool { return l == Generic }

// Active reports the level in use.
func Active() Level { return active }

// SetLevel forces level l for all later calls. Not safe to call while a
// kernel runs: callers switch between generations.
func SetLevel(l Level) error {
	if !Supported(l) {
		return &UnsupportedError{l}
	}
	active = l
	return nil
}

// UnsupportedError says the CPU cannot run a level.
type UnsupportedError struct{ Level Level }

func (e *UnsupportedError) Error() string {
	return "kernels: this CPU does not support level " + e.Level.String()
}

// MatVecBF16 computes out[r] = Σ_c w[r·cols+c]·x[c] for r < len(out),
// with cols = len(x). w is len(out) × cols, row-major.
func MatVecBF16(out []float32, w []BF16, x []float32) {
	cols := len(x)
	if len(w) < len(out)*cols {
		panic("kernels: MatVecBF16: w too short")
	}
	for r := range out {
		row := w[r*cols : r*cols+cols]
		var s float32
		for c, v := range row {
			s += v.Float32() * x[c]
		}
		out[r] = s
	}
}

// MatVecF32 is MatVecBF16 for float32 weights.
func MatVecF32(out []float32, w []float32, x []float32) {
	cols := len(x)
	if len(w) < len(out)*cols {
		panic("kernels: MatVecF32: w too short")
	}
	for r := range out {
		out[r] = Dot(w[r*cols:r*cols+cols], x)
	}
}

// MatMulBF16 computes out[t·ldOut+r] = Σ_c w[r·cols+c]·x[t·cols+c] for
// t < n and r < rows = len(w)/cols: Y = X·Wᵀ with X n × cols, W rows × cols.
// Workers pass a band of rows (w[r0·cols:], out[r0:]) with ldOut unchanged.
func MatMulBF16(out []float32, ldOut int, w []BF16, x []float32, n, cols int) {
	rows := len(w) / cols
	for t := range n {
		MatVecBF16(out[t*ldOut:t*ldOut+rows], w[:rows*cols], x[t*cols:t*cols+cols])
	}
}

// MatMulF32 is MatMulBF16 for float32 weights.
func MatMulF32(out []float32, ldOut int, w []float32, x []float32, n, cols int) {
	rows := len(w) / cols
	for t := range n {
		MatVecF32(out[t*ldOut:t*ldOut+rows], w[:rows*cols], x[t*cols:t*cols+cols])
	}
}

// Dot returns Σ a[i]·b[i] over len(a) (b at least as long).
func Dot(a, b []float32) float32 {
	var s float32
	for i, v := range a {
		s += v * b[i]
	}
	return s
}

// Axpy computes y[i] += a·x[i].
func Axpy(y []float32, a float32, x []float32) {
	for i := range y {
		y[i] += a * x[i]
	}
}

// Add computes y[i] += x[i].
func Add(y, x []float32) {
	for i := range y {
		y[i] += x[i]
	}
}

// RMSNorm computes out[i] = x[i] / sqrt(mean(x²) + eps) · weight[i].
func RMSNorm(out, x, weight []float32, eps float32) {
	var ss float64
	for _, v := range x {
		ss += float64(v) * float64(v)
	}
	inv := float32(1 / sqrt64(ss/float64(len(x))+float64(eps)))
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
	for i, g := range gate {
		out[i] = g / (1 + exp32(-g)) * up[i]
	}
}

// RoPE rotates one head vector x (length d) in half-split pairs
// (x[i], x[i+d/2]) by the angles whose cos and sin (length d/2) are given:
// x[i] ← x[i]·cos[i] − x[i+d/2]·sin[i]; x[i+d/2] ← x[i+d/2]·cos[i] + x[i]·sin[i].
func RoPE(x, cos, sin []float32) {
	h := len(x) / 2
	for i := range h {
		a, b := x[i], x[i+h]
		x[i] = a*cos[i] - b*sin[i]
		x[i+h] = b*cos[i] + a*sin[i]
	}
}
