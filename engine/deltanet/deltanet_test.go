package deltanet

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"loupe/kernels"
)

// forEachLevel runs f at every kernel level this CPU supports: Step and
// Chunked call kernels.Axpy, Dot, MatMulF32 and MatMulNN.
func forEachLevel(t *testing.T, f func(t *testing.T)) {
	defer func(l kernels.Level) { kernels.SetLevel(l) }(kernels.Active())
	for _, l := range kernels.Levels() {
		if !kernels.Supported(l) {
			continue
		}
		if err := kernels.SetLevel(l); err != nil {
			t.Fatal(err)
		}
		t.Run(l.String(), f)
	}
}

// oracle is the gated delta rule in float64, straight from docs/spec/qwen35.md §5.1
// step 7: S ← αS; δ = β(v − Sᵀk); S ← S + kδᵀ; o = Sᵀq. S is [dk][dv].
func oracle(S [][]float64, q, k, v [][]float64, g, beta []float64) [][]float64 {
	dk, dv := len(S), len(S[0])
	out := make([][]float64, len(q))
	for t := range q {
		alpha := math.Exp(g[t])
		for i := range dk {
			for c := range dv {
				S[i][c] *= alpha
			}
		}
		delta := make([]float64, dv)
		for c := range dv {
			var r float64
			for i := range dk {
				r += S[i][c] * k[t][i]
			}
			delta[c] = beta[t] * (v[t][c] - r)
		}
		for i := range dk {
			for c := range dv {
				S[i][c] += k[t][i] * delta[c]
			}
		}
		out[t] = make([]float64, dv)
		for c := range dv {
			for i := range dk {
				out[t][c] += S[i][c] * q[t][i]
			}
		}
	}
	return out
}

// headCase is random inputs of one head: unit q and k (q scaled by 1/√dk,
// as the layer feeds them), v ~ N(0,1), g from the layer's formula with
// a ~ N(0,1), β ∈ (0,1), and a non-zero starting state.
type headCase struct {
	T, dk, dv int
	q, k, v   [][]float64
	g, beta   []float64
	S0        [][]float64
}

func newHeadCase(T, dk, dv int, seed uint64) headCase {
	rng := rand.New(rand.NewPCG(seed, 7))
	vec := func(n int, unit bool, scale float64) []float64 {
		x := make([]float64, n)
		var ss float64
		for i := range x {
			x[i] = float64(float32(rng.NormFloat64()))
			ss += x[i] * x[i]
		}
		if unit {
			for i := range x {
				x[i] = float64(float32(x[i] / math.Sqrt(ss) * scale))
			}
		}
		return x
	}
	c := headCase{T: T, dk: dk, dv: dv}
	for range T {
		c.q = append(c.q, vec(dk, true, 1/math.Sqrt(float64(dk))))
		c.k = append(c.k, vec(dk, true, 1))
		c.v = append(c.v, vec(dv, false, 1))
		a := rng.NormFloat64()
		c.g = append(c.g, float64(float32(-math.Exp(-0.5)*math.Log1p(math.Exp(a)))))
		c.beta = append(c.beta, float64(float32(1/(1+math.Exp(-rng.NormFloat64())))))
	}
	for range dk {
		row := vec(dv, false, 1)
		for c := range row {
			row[c] = float64(float32(0.1 * row[c]))
		}
		c.S0 = append(c.S0, row)
	}
	return c
}

// seq lays the case out as the engine does: q and k rows inside a wider
// row (stride ldqk > dk), v and o likewise, g and β interleaved with other
// heads (stride ldg).
func (c headCase) seq() (Seq, []float32) {
	ldqk, ldv, ldg := c.dk+5, c.dv+3, 3
	s := Seq{T: c.T, Q: make([]float32, c.T*ldqk), K: make([]float32, c.T*ldqk), LdQK: ldqk,
		V: make([]float32, c.T*ldv), LdV: ldv, O: make([]float32, c.T*ldv), LdO: ldv,
		G: make([]float32, c.T*ldg), Beta: make([]float32, c.T*ldg), LdG: ldg}
	for t := range c.T {
		for i := range c.dk {
			s.Q[t*ldqk+i], s.K[t*ldqk+i] = float32(c.q[t][i]), float32(c.k[t][i])
		}
		for i := range c.dv {
			s.V[t*ldv+i] = float32(c.v[t][i])
		}
		s.G[t*ldg], s.Beta[t*ldg] = float32(c.g[t]), float32(c.beta[t])
	}
	S := make([]float32, c.dk*c.dv)
	for i := range c.dk {
		for j := range c.dv {
			S[i*c.dv+j] = float32(c.S0[i][j])
		}
	}
	return s, S
}

func (c headCase) want() (out [][]float64, S [][]float64) {
	S = make([][]float64, c.dk)
	for i := range S {
		S[i] = append([]float64(nil), c.S0[i]...)
	}
	return oracle(S, c.q, c.k, c.v, c.g, c.beta), S
}

// maxErr is the largest |got − want| over rows of d values at stride ld.
func maxErr(got []float32, ld int, want [][]float64) float64 {
	var e float64
	for t, row := range want {
		for i, w := range row {
			e = max(e, math.Abs(float64(got[t*ld+i])-w))
		}
	}
	return e
}

// headTol bounds |fp32 − float64| of outputs and state (both O(1)): the
// state is a sum of up to ~1/(1−α) rank-1 writes of unit-scale terms, each
// product summed over 128 terms in fp32. Measured below 1e-5; a wrong
// recurrence (state read before the update, no delta term, reversed decay)
// is off by more than 1e-2.
const headTol = 1e-4

func TestStepAndChunkedMatchOracle(t *testing.T) {
	forEachLevel(t, func(t *testing.T) {
		for _, T := range []int{1, 2, 7, 63, 64, 65, 130, 200} {
			for _, dims := range [][2]int{{16, 16}, {128, 128}, {32, 24}} {
				c := newHeadCase(T, dims[0], dims[1], uint64(T*1000+dims[0]))
				wantO, wantS := c.want()
				name := fmt.Sprintf("T%d_dk%d_dv%d", T, c.dk, c.dv)
				s, S := c.seq()
				Recurrent(s, S, c.dk, c.dv, make([]float32, c.dv))
				check(t, name+"/recurrent", s, S, c, wantO, wantS)

				s, S = c.seq()
				Chunked(NewWorkspace(c.dk, c.dv), s, S, c.dk, c.dv)
				check(t, name+"/chunked", s, S, c, wantO, wantS)

				s, S = c.seq()
				for t := range T {
					stepReference(s.O[t*s.LdO:][:c.dv], S, s.Q[t*s.LdQK:][:c.dk], s.K[t*s.LdQK:][:c.dk],
						s.V[t*s.LdV:][:c.dv], s.G[t*s.LdG], s.Beta[t*s.LdG])
				}
				check(t, name+"/reference", s, S, c, wantO, wantS)
			}
		}
	})
}

func check(t *testing.T, name string, s Seq, S []float32, c headCase, wantO, wantS [][]float64) {
	t.Helper()
	if e := maxErr(s.O, s.LdO, wantO); !(e < headTol) {
		t.Errorf("%s: outputs differ from the float64 oracle by %.3g (tol %g)", name, e, headTol)
	}
	if e := maxErr(S, c.dv, wantS); !(e < headTol) {
		t.Errorf("%s: final state differs from the float64 oracle by %.3g (tol %g)", name, e, headTol)
	}
	for tt := range c.T { // padding between rows stays untouched
		for i := c.dv; i < s.LdO; i++ {
			if s.O[tt*s.LdO+i] != s.V[tt*s.LdV+i] && s.O[tt*s.LdO+i] != 0 {
				t.Fatalf("%s: wrote outside row %d", name, tt)
			}
		}
	}
}

// TestChunkedSplitAnywhere: a prefill of 150 tokens in calls of 40 and 110
// (chunks that do not align with ChunkSize) continues the state exactly as
// one call does.
func TestChunkedSplitAnywhere(t *testing.T) {
	c := newHeadCase(150, 32, 32, 9)
	wantO, wantS := c.want()
	s, S := c.seq()
	ws := NewWorkspace(32, 32)
	a, b := s, s
	a.T = 40
	b.T = 110
	b.Q, b.K, b.V, b.O = s.Q[40*s.LdQK:], s.K[40*s.LdQK:], s.V[40*s.LdV:], s.O[40*s.LdO:]
	b.G, b.Beta = s.G[40*s.LdG:], s.Beta[40*s.LdG:]
	Chunked(ws, a, S, 32, 32)
	Chunked(ws, b, S, 32, 32)
	check(t, "split", s, S, c, wantO, wantS)
}

func TestCausalConvMatchesOracle(t *testing.T) {
	const K, C, T = 4, 13, 11
	rng := rand.New(rand.NewPCG(3, 3))
	w := make([]float32, C*K) // conv1d.weight [C, 1, K]
	for i := range w {
		w[i] = float32(rng.NormFloat64())
	}
	m := make([]float32, T*C)
	for i := range m {
		m[i] = float32(rng.NormFloat64())
	}
	want := make([]float64, T*C) // oracle: zero history, tap K−1 on the current token
	for t := range T {
		for c := range C {
			var s float64
			for j := range K {
				if src := t - (K - 1) + j; src >= 0 {
					s += float64(w[c*K+j]) * float64(m[src*C+c])
				}
			}
			want[t*C+c] = s / (1 + math.Exp(-s))
		}
	}
	wT := TransposeConv(w, K, C)
	d := Dims{NK: 1, NV: 1, DK: 1, DV: C - 2, Conv: K} // ConvDim = C
	for _, split := range [][]int{{T}, {1, 1, 1, 1, 7}, {2, 9}, {5, 1, 5}} {
		st, out := NewState(d), make([]float32, T*C)
		t0 := 0
		for _, n := range split { // token-by-token and uneven chunks carry the window
			CausalConv(out[t0*C:], m[t0*C:], n, st, wT, K, C, 0, 5)
			CausalConv(out[t0*C:], m[t0*C:], n, st, wT, K, C, 5, C)
			t0 += n
		}
		for i := range want {
			if math.Abs(float64(out[i])-want[i]) > 1e-5 {
				t.Fatalf("split %v: conv[%d][%d] = %g, want %g", split, i/C, i%C, out[i], want[i])
			}
		}
		for r := range K - 1 {
			for c := range C {
				if st.Conv[r*C+c] != m[(T-(K-1)+r)*C+c] {
					t.Fatalf("split %v: window row %d is not the last pre-conv vectors", split, r)
				}
			}
		}
	}
}

func TestGatesAndNorms(t *testing.T) {
	g, beta := make([]float32, 3), make([]float32, 3)
	a, b := []float32{0.5, 30, -3}, []float32{0, 2, -2}
	aLog, dt := []float32{0, 1, -1}, []float32{0.1, 0, 1}
	Gates(g, beta, a, b, aLog, dt)
	for j := range 3 {
		x := float64(a[j] + dt[j])
		sp := math.Log1p(math.Exp(x))
		if x > 20 {
			sp = x
		}
		wantG := -math.Exp(float64(aLog[j])) * sp
		wantB := 1 / (1 + math.Exp(-float64(b[j])))
		if math.Abs(float64(g[j])-wantG) > 1e-5*max(1, math.Abs(wantG)) || math.Abs(float64(beta[j])-wantB) > 1e-6 {
			t.Errorf("head %d: g %g β %g, want %g %g", j, g[j], beta[j], wantG, wantB)
		}
	}
	x := []float32{3, 4}
	L2Norm(x, 0.5)
	if math.Abs(float64(x[0])-0.3) > 1e-6 || math.Abs(float64(x[1])-0.4) > 1e-6 {
		t.Errorf("L2Norm([3 4], 0.5) = %v", x)
	}
	out := make([]float32, 2)
	GatedRMSNorm(out, []float32{1, -1}, []float32{0, 2}, []float32{2, 3}, 0)
	want := []float64{0, -3 * 2 / (1 + math.Exp(-2))} // rms 1; silu(0) = 0
	for i := range out {
		if math.Abs(float64(out[i])-want[i]) > 1e-6 {
			t.Errorf("GatedRMSNorm[%d] = %g, want %g", i, out[i], want[i])
		}
	}
}
