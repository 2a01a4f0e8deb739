package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestExp32 sweeps the whole float32 range of exp: within 2 ulp of the
// float64 value where the result is normal, within 2 of the smallest
// subnormal below that, and exact limits outside.
func TestExp32(t *testing.T) {
	const minNormal = 0x1p-126
	for x := float32(-104); x < 89; x += 0.000977 {
		got, want := float64(exp32(x)), math.Exp(float64(x))
		if want > math.MaxFloat32 {
			if !math.IsInf(got, 1) {
				t.Fatalf("exp32(%v) = %v, want +Inf", x, got)
			}
			continue
		}
		tol := 2 * 0x1p-23 * want
		if want < minNormal {
			tol = 2 * 0x1p-149
		}
		if d := math.Abs(got - want); !(d <= tol) {
			t.Fatalf("exp32(%v) = %v, want %v (error %.3g > %.3g)", x, got, want, d, tol)
		}
	}
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	if exp32(inf) != inf || exp32(-inf) != 0 || exp32(0) != 1 || exp32(nan) == exp32(nan) {
		t.Fatalf("exp32 limits: e^inf %v, e^-inf %v, e^0 %v, e^NaN %v", exp32(inf), exp32(-inf), exp32(0), exp32(nan))
	}
}

func TestSoftmax(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, n := range sizes {
		x := randF32(r, n, 1)
		for i := range x {
			x[i] *= 8 // attention scores spread over tens of units
		}
		want := make([]float64, n)
		m := math.Inf(-1)
		for _, v := range x {
			m = math.Max(m, float64(v))
		}
		var s float64
		for i, v := range x {
			want[i] = math.Exp(float64(v) - m)
			s += want[i]
		}
		Softmax(x)
		for i := range x {
			// exp to 2 ulp, the sum's rounding, one division and one product.
			within(t, fmt.Sprintf("Softmax n=%d [%d]", n, i), x[i], want[i]/s, want[i]/s, sumTol(n)+8*u32)
		}
	}
}

func TestSiLUMul(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	for _, n := range sizes {
		g, up := randF32(r, n, 3), randF32(r, n, 1)
		for i := range g {
			g[i] *= 6
		}
		if n > 0 {
			g[0] = -100 // e^100 overflows float32: silu must still give -0
		}
		out, check := guarded(t, n, 1)
		SiLUMul(out, g, up)
		check()
		for i := range n {
			gi := float64(g[i])
			want := gi / (1 + math.Exp(-gi)) * float64(up[i])
			// The absolute floor covers silu(-100) ≈ -4e-42, below float32's normals.
			within(t, fmt.Sprintf("SiLUMul n=%d [%d]", n, i), out[i], want, math.Abs(want)+0x1p-100, 8*u32)
		}
	}
}

func TestRMSNorm(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	for _, n := range sizes {
		x, w := randF32(r, n, 1), randF32(r, n, 3)
		x64 := f64(x)
		var ss float64
		for _, v := range x64 {
			ss += v * v
		}
		const eps = 1e-6
		out, check := guarded(t, n, 3)
		RMSNorm(out, x, w, eps)
		check()
		for i := range n {
			want := x64[i] / math.Sqrt(ss/float64(n)+eps) * float64(w[i])
			within(t, fmt.Sprintf("RMSNorm n=%d [%d]", n, i), out[i], want, math.Abs(want), 4*u32)
		}
	}
}

func TestRoPE(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 38))
	for _, d := range []int{0, 2, 64, 128} {
		x := randF32(r, d, 1)
		cos, sin := make([]float32, d/2), make([]float32, d/2)
		for i := range cos {
			th := r.Float64() * 2 * math.Pi
			cos[i], sin[i] = float32(math.Cos(th)), float32(math.Sin(th))
		}
		x64 := f64(x)
		RoPE(x, cos, sin)
		for i := range d / 2 {
			a, b, c, s := x64[i], x64[i+d/2], float64(cos[i]), float64(sin[i])
			within(t, fmt.Sprintf("RoPE d=%d [%d]", d, i), x[i], a*c-b*s, math.Abs(a*c)+math.Abs(b*s), 3*u32)
			within(t, fmt.Sprintf("RoPE d=%d [%d]", d, i+d/2), x[i+d/2], b*c+a*s, math.Abs(b*c)+math.Abs(a*s), 3*u32)
		}
	}
}
