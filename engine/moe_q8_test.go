package engine

import (
	"math"
	"math/rand/v2"
	"testing"

	"loupe/kernels"
)

// q8Expert re-encodes expert e of layer 0 in q (Q8_0, Q4_K…) from the
// values it holds.
func q8Expert(m *Model, e int, q kernels.Quant) *expertWeights {
	enc := func(w mat) mat {
		out := mat{rows: w.rows, cols: w.cols, qt: q, q: make([]byte, w.rows*q.RowBytes(w.cols))}
		row := make([]float32, w.cols)
		for r := range w.rows {
			w.row(row, r)
			kernels.QuantizeRow(q, out.q[r*q.RowBytes(w.cols):], row)
		}
		return out
	}
	ew := &m.w.layers[0].moe.experts[e]
	return &expertWeights{gate: enc(ew.gate), up: enc(ew.up), down: enc(ew.down)}
}

// TestExpertsQ8MatchesDecode: prefill's integer experts (expertsQ8: the
// experts with few tokens run together, each band of rows meeting every
// token of its expert in turn) give, for every pair (expert, token),
// exactly what decode's integer path gives for that token alone
// (projectAll's gate and up on its input rounded to 8 bits, then
// vecEach's down), whatever the tokens per expert and the threads; and
// that is the float64 expert within the 8-bit rounding of its inputs.
func TestExpertsQ8MatchesDecode(t *testing.T) {
	cfg := tinyOlmoe()
	moe := *cfg.MoE
	moe.ExpertSize, cfg.IntermediateSize, cfg.MoE = 64, 64, &moe // rows of whole Q8_0 blocks
	h, I := cfg.HiddenSize, cfg.MoE.ExpertSize
	for _, threads := range []int{1, 3} {
		m := qwen35Model(t, cfg, randomMoE(cfg, moeSeed), "F32", threads)
		mw := &moeWeights{}
		for e := range cfg.MoE.Experts {
			mw.experts = append(mw.experts, *q8Expert(m, e, kernels.Q8_0))
		}
		if !mw.integerExperts() {
			t.Skip("no integer kernels at this level")
		}
		const T = 40
		r := rand.New(rand.NewPCG(uint64(threads), 5))
		xn := make([]float32, T*h)
		for i := range xn {
			xn[i] = float32(r.NormFloat64())
		}
		s := m.moeScratch(T)
		for t := range T {
			s.xqT[t].Quantize(xn[t*h : (t+1)*h])
		}
		// Experts 1, 4 and 6 with 1, 15 and 3 tokens (some tokens in two).
		f := &s.few
		f.experts, f.first = []int{1, 4, 6}, []int{0, 1, 16, 19}
		f.grow(19, I, h)
		copy(f.tokens, []int{7, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 7, 30, 39})
		m.expertsQ8(mw, s)
		worst := 0.0 // the largest |y − float64 expert| as a share of its bound
		for j, e := range f.experts {
			ew := &mw.experts[e]
			for i := f.first[j]; i < f.first[j+1]; i++ {
				x := xn[f.tokens[i]*h : (f.tokens[i]+1)*h]
				gate, up, y := make([]float32, I), make([]float32, I), make([]float32, h)
				m.projectAll(x, 1, projection{&ew.gate, gate}, projection{&ew.up, up})
				kernels.SiLUMul(gate, gate, up)
				m.vecEach([]rowsJob{{&ew.down, gate, y, new(kernels.QuantizedX)}})
				got := f.ys[i*h : (i+1)*h]
				for c := range h {
					if got[c] != y[c] {
						t.Fatalf("threads %d, expert %d, token %d: y[%d] = %v, decode's %v", threads, e, f.tokens[i], c, got[c], y[c])
					}
				}
				want, bound := refExpertQ8(ew, x)
				for c := range h {
					worst = math.Max(worst, math.Abs(float64(y[c])-want[c])/bound[c])
					if d := math.Abs(float64(y[c]) - want[c]); d > bound[c] {
						t.Fatalf("expert %d, token %d: y[%d] = %v, float64 expert %v (bound %.3g)", e, f.tokens[i], c, y[c], want[c], bound[c])
					}
				}
			}
		}
		t.Logf("threads %d: largest error %.2f of the bound", threads, worst)
	}
}

// refExpertQ8 is the expert in float64 on its dequantised weights with
// fp32 inputs, and a bound on what rounding the inputs of gate, up (x)
// and down (the activation) to 8 bits per 32 may move each output: with
// |x − x̂| ≤ max|x over the block|/254, the activation a = silu(g)·u moves
// by at most |∂a/∂g|·δg + |silu(g)|·δu (δ: Σ|W|·|x − x̂| of the row, plus
// its square terms, bounded by doubling), and y by Σ|W_down|·(δa + |a −
// â|).
func refExpertQ8(ew *expertWeights, x []float32) (y, bound []float64) {
	dense := func(w *mat) [][]float64 {
		out := make([][]float64, w.rows)
		row := make([]float32, w.cols)
		for r := range w.rows {
			w.row(row, r)
			out[r] = f64s(row)
		}
		return out
	}
	rounding := func(v []float64) []float64 { // max |v − v̂| per element
		e := make([]float64, len(v))
		for b := 0; b < len(v); b += 32 {
			mx := 0.0
			for _, a := range v[b : b+32] {
				mx = math.Max(mx, math.Abs(a))
			}
			for j := range 32 {
				e[b+j] = mx / 254 * 1.001
			}
		}
		return e
	}
	mul := func(w [][]float64, v, ev []float64) (out, err []float64) {
		for _, row := range w {
			var s, e, a float64
			for c, wv := range row {
				s += wv * v[c]
				e += math.Abs(wv) * ev[c]
				a += math.Abs(wv * v[c])
			}
			out, err = append(out, s), append(err, e+1e-5*a)
		}
		return out, err
	}
	gw, uw, dw := dense(&ew.gate), dense(&ew.up), dense(&ew.down)
	xv := f64s(x)
	ex := rounding(xv)
	g, eg := mul(gw, xv, ex)
	u, eu := mul(uw, xv, ex)
	a, ea := make([]float64, len(g)), make([]float64, len(g))
	for i := range g {
		sig := 1 / (1 + math.Exp(-g[i]))
		silu := g[i] * sig
		a[i] = silu * u[i]
		dsilu := math.Abs(sig*(1+g[i]*(1-sig))) + 0.25*eg[i] // |silu'| over the interval
		ea[i] = 2 * (dsilu*eg[i]*(math.Abs(u[i])+eu[i]) + (math.Abs(silu)+dsilu*eg[i])*eu[i])
	}
	era := rounding(a)
	for i := range ea {
		ea[i] += era[i] + ea[i]/127 // â rounds a value already off by ea
	}
	y, bound = mul(dw, a, ea)
	return y, bound
}
