package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The element-wise family at every level the CPU supports, against float64
// oracles, over the size sweep and misaligned offsets, between guard cells.
// norm_test.go holds exp32's sweep and the active level's checks.

var (
	inf32 = float32(math.Inf(1))
	nan32 = float32(math.NaN())
)

// softmax64 is the oracle: exp(x − max) / Σ exp(x − max) in float64.
func softmax64(x []float32) []float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, float64(v))
	}
	y := make([]float64, len(x))
	var s float64
	for i, v := range x {
		y[i] = math.Exp(float64(v) - m)
		s += y[i]
	}
	for i := range y {
		y[i] /= s
	}
	return y
}

// TestSoftmaxLevels: attention-like rows (scores spread over tens of units,
// a causal tail of -Inf) agree with the oracle to the accumulated rounding
// of the sum plus a few ulp of exp, sum to 1 within that bound, and give
// exactly 0 where masked.
func TestSoftmaxLevels(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(41, 42))
		for _, n := range sizes {
			for _, off := range offsets {
				x := randF32(r, n, 0)
				for i := range x {
					x[i] *= 8
					if i > 2*n/3 {
						x[i] = -inf32 // masked
					}
				}
				want := softmax64(x)
				y, check := guarded(t, n, off)
				copy(y, x)
				Softmax(y)
				check()
				tol := sumTol(n) + 8*u32
				var sum float64
				for i := range n {
					if x[i] == -inf32 && y[i] != 0 {
						t.Fatalf("Softmax n=%d+%d [%d]: masked entry gives %v, want 0", n, off, i, y[i])
					}
					within(t, fmt.Sprintf("Softmax n=%d+%d [%d]", n, off, i), y[i], want[i], want[i], tol)
					sum += float64(y[i])
				}
				if n > 0 {
					within(t, fmt.Sprintf("Softmax n=%d+%d Σ", n, off), float32(sum), 1, 1, tol)
				}
			}
		}
	})
}

// TestSoftmaxSpecial: a spread wider than float32's exp range underflows to
// exact zeros; NaN, +Inf or an all -Inf row make the whole row NaN, as the
// generic loop does.
func TestSoftmaxSpecial(t *testing.T) {
	allNaN := func(y []float32) bool {
		for _, v := range y {
			if v == v {
				return false
			}
		}
		return true
	}
	forEachLevel(t, func(t *testing.T, l Level) {
		for _, n := range []int{1, 17, 64} {
			y := make([]float32, n)
			for i := range y {
				y[i] = -1e4 * float32(i) // x − max from 0 to −6.3e5
			}
			Softmax(y)
			if y[0] != 1 {
				t.Fatalf("n=%d: wide row gives %v at the max, want 1", n, y[0])
			}
			for i, v := range y[1:] {
				if v != 0 {
					t.Fatalf("n=%d: wide row gives %v at %d, want 0", n, v, i+1)
				}
			}
			for _, bad := range []float32{nan32, inf32} {
				for _, at := range []int{0, n / 2, n - 1} {
					y := randF32(rand.New(rand.NewPCG(uint64(n), uint64(at))), n, 0)
					y[at] = bad
					Softmax(y)
					if !allNaN(y) {
						t.Fatalf("n=%d: %v at %d gives %v, want all NaN", n, bad, at, y)
					}
				}
			}
			for i := range y {
				y[i] = -inf32
			}
			Softmax(y)
			if !allNaN(y) {
				t.Fatalf("n=%d: all -Inf gives %v, want all NaN", n, y)
			}
		}
	})
}

// TestSiLUMulLevels: out = g/(1+e^-g)·up within 8 ulp-units of the oracle
// (exp's 2 ulp damped by e/(1+e), the add, the division, the product),
// in place (out = gate) as the engine calls it. Special gates: -100 and
// -1e30 (e^-g overflows: silu is -0, never NaN), ±88.5 (at the exp's
// overflow edge), 100, 0. Results below 2^-90 are held to an absolute
// bound only: the exp saturates to +Inf 0.35 early (see norm_amd64.s).
func TestSiLUMulLevels(t *testing.T) {
	specials := []float32{-100, -1e30, 88.5, -88.5, 100, 0, -88.2, 1e30}
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(43, 44))
		for _, n := range sizes {
			for _, off := range offsets {
				g, up := randF32(r, n, 3-off), randF32(r, n, 1)
				for i := range g {
					g[i] *= 6
				}
				for i, v := range specials {
					if i*5 < n {
						g[i*5] = v
					}
				}
				for _, inPlace := range []bool{false, true} {
					out, check := guarded(t, n, off)
					gate := g
					if inPlace {
						copy(out, g)
						gate = out
					}
					SiLUMul(out, gate, up)
					check()
					for i := range n {
						gi := float64(g[i])
						want := gi / (1 + math.Exp(-gi)) * float64(up[i])
						what := fmt.Sprintf("SiLUMul n=%d+%d in-place=%v g=%v [%d]", n, off, inPlace, g[i], i)
						within(t, what, out[i], want, math.Abs(want)+0x1p-90, 8*u32)
					}
				}
			}
		}
	})
}

// TestSiLUMulSpecial documents NaN and infinite inputs: a NaN gate or up
// gives NaN; g = +Inf gives +Inf·up; g = -Inf gives NaN (-Inf/Inf), as in
// the generic loop.
func TestSiLUMulSpecial(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		const n = 32
		g, up, out := make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range g {
			g[i], up[i] = 1, 1
		}
		g[0], g[9], g[17], g[31] = nan32, inf32, -inf32, -1e30
		up[3] = nan32
		SiLUMul(out, g, up)
		isNaN := func(v float32) bool { return v != v }
		if !isNaN(out[0]) || !isNaN(out[3]) || out[9] != inf32 || !isNaN(out[17]) || out[31] != 0 {
			t.Fatalf("specials: out[0]=%v out[3]=%v out[9]=%v out[17]=%v out[31]=%v", out[0], out[3], out[9], out[17], out[31])
		}
	})
}

// TestRMSNormLevels: the sum of squares stays float64-grade at every level,
// including Qwen-like hidden states with entries near 1e4.
func TestRMSNormLevels(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(45, 46))
		for _, n := range sizes {
			for _, off := range offsets {
				x, w := randF32(r, n, off), randF32(r, n, 3-off)
				for i := 0; i < n; i += 97 {
					x[i] *= 1e4 // outlier channels
				}
				x64 := f64(x)
				var ss float64
				for _, v := range x64 {
					ss += v * v
				}
				const eps = 1e-6
				out, check := guarded(t, n, off)
				RMSNorm(out, x, w, eps)
				check()
				for i := range n {
					want := x64[i] / math.Sqrt(ss/float64(n)+eps) * float64(w[i])
					within(t, fmt.Sprintf("RMSNorm n=%d+%d [%d]", n, off, i), out[i], want, math.Abs(want), 4*u32)
				}
			}
		}
	})
}

func TestElementwiseNoAllocation(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		x, y, w := make([]float32, 100), make([]float32, 100), make([]float32, 100)
		for name, f := range map[string]func(){
			"Softmax": func() { Softmax(x) },
			"SiLUMul": func() { SiLUMul(y, x, w) },
			"RMSNorm": func() { RMSNorm(y, x, w, 1e-6) },
		} {
			if a := testing.AllocsPerRun(10, f); a != 0 {
				t.Errorf("%s: %v allocations", name, a)
			}
		}
	})
}

// Benchmarks, in ns per element of thread CPU time: an attention row of a
// long prefill, Qwen2.5-1.5B's MLP width and hidden size.

func benchElems(b *testing.B, n int, f func()) {
	benchLevels(b, func(b *testing.B) {
		clock := threadClock()
		for b.Loop() {
			f()
		}
		b.ReportMetric(float64(clock().Nanoseconds())/float64(b.N*n), "ns/elem")
	})
}

func BenchmarkSoftmax(b *testing.B) {
	for _, n := range []int{128, 1194} {
		x0 := randF32(rand.New(rand.NewPCG(8, 8)), n, 0)
		x := make([]float32, n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			// Re-copying the scores keeps the input a softmax input; the copy
			// is a few percent of the generic time.
			benchElems(b, n, func() { copy(x, x0); Softmax(x) })
		})
	}
}

func BenchmarkSiLUMul(b *testing.B) {
	const n = 8960
	r := rand.New(rand.NewPCG(9, 9))
	g, up, out := randF32(r, n, 0), randF32(r, n, 0), make([]float32, n)
	benchElems(b, n, func() { SiLUMul(out, g, up) })
}

func BenchmarkRMSNorm(b *testing.B) {
	const n = 1536
	r := rand.New(rand.NewPCG(10, 10))
	x, w, out := randF32(r, n, 0), randF32(r, n, 0), make([]float32, n)
	benchElems(b, n, func() { RMSNorm(out, x, w, 1e-6) })
}
