package engine

// The sparse mixture-of-experts block (docs/spec/moe.md §1), shared by the
// MoE architectures (olmoe.go, qwen3moe.go, qwen35moe.go). For each token:
//
//  1. router logits z = W_r·x [E] (mlp.gate.weight [E, h]), x the normed
//     residual;
//  2. p = softmax(z) in fp32 over all E experts;
//  3. the k largest p, ordered by (p desc, expert id asc);
//  4. weights g_e = p_e, or p_e / Σ_chosen p when the model renormalises;
//  5. each chosen expert's SwiGLU y_e = down_e(silu(gate_e·x) ⊙ up_e·x);
//  6. out = Σ g_e·y_e, plus σ(w_sg·x)·shared(x) when there is a shared
//     expert (Qwen3.5-MoE).
//
// Notation: h hidden, E experts, k chosen per token, I expert width, I_s
// shared-expert width, T tokens in this call. The configuration and the
// loading are moe_load.go, the integer path moe_int8.go.

import (
	"cmp"
	"math"
	"slices"

	"loupe/kernels"
	"loupe/trace"
)

// moeWeights are one sparse layer's FFN tensors.
type moeWeights struct {
	router     mat             // [E, h] mlp.gate.weight
	experts    []expertWeights // [E], expert e = router row e
	shared     *expertWeights  // width I_s (Qwen3.5-MoE), or nil
	sharedGate mat             // [1, h] mlp.shared_expert_gate.weight
}

// expertWeights are one SwiGLU expert: gate and up [I, h], down [h, I].
type expertWeights struct{ gate, up, down mat }

// moeScratch holds the MoE block's activations of one forward call.
type moeScratch struct {
	logits, probs []float32            // [T, E] router logits z, softmax p
	ids           []int                // [T, k] chosen experts, best first
	weights       []float32            // [T, k] g as applied
	rows          []int                // tokens routed to the current expert
	xs, ys        []float32            // [n, h] those tokens' inputs and the expert's outputs
	gate, up      []float32            // [n, max(I, I_s)]
	gamma         []float32            // [T] shared-expert gate logits
	xq            []kernels.QuantizedX // [k] a decode step's down inputs rounded to 8 bits (integer kernels)
	xqT           []kernels.QuantizedX // [T] prefill's inputs rounded to 8 bits (integer experts)
	few           fewTokens            // prefill's experts with fewer than q8Tokens tokens, run together
}

// scratch sizes the MoE buffers for T tokens.
func (m *Model) moeScratch(T int) *moeScratch {
	c, s, h := m.cfg.MoE, &m.moeBuf, m.cfg.HiddenSize
	if len(s.gamma) < T {
		E, k, I := c.Experts, c.TopK, max(c.ExpertSize, c.SharedSize)
		n := max(T, k) // a decode step holds its k experts' rows side by side
		s.logits, s.probs = make([]float32, T*E), make([]float32, T*E)
		s.ids, s.weights = make([]int, T*k), make([]float32, T*k)
		s.rows = make([]int, 0, T)
		s.xs, s.ys = make([]float32, n*h), make([]float32, n*h)
		s.gate, s.up = make([]float32, n*I), make([]float32, n*I)
		s.gamma = make([]float32, T)
		s.xq = make([]kernels.QuantizedX, k)
		s.xqT = make([]kernels.QuantizedX, T)
	}
	return s
}

// moe is the sparse block over xn [T, h] into ffnOut [T, h]. Tokens are
// grouped by expert, so a prefill reads each chosen expert once and a
// decode step reads only its k experts' rows. Each token's terms are
// added in ascending expert id, then the shared expert's: the same order
// whatever the threads or the call's size.
func (m *Model) moe(mw *moeWeights, l, T, pos0 int, pr *probes) {
	c, b, h := m.cfg.MoE, &m.buf, m.cfg.HiddenSize
	E, k := c.Experts, pr.expertsPerToken(c.TopK)
	s := m.moeScratch(T)
	m.project(&mw.router, s.logits, b.xn, T) // router logits z [T, E]
	for t := range T {
		for _, e := range pr.expertsOffIn(l) { // masked: z_e = −∞, so p_e = 0
			s.logits[t*E+e] = float32(math.Inf(-1))
		}
		route(s.logits[t*E:(t+1)*E], s.probs[t*E:(t+1)*E], s.ids[t*k:(t+1)*k], s.weights[t*k:(t+1)*k], c.NormTopK)
		pr.captureExperts(l, pos0+t, s.ids[t*k:(t+1)*k], s.weights[t*k:(t+1)*k], s.probs[t*E:(t+1)*E])
	}
	out := b.ffnOut[:T*h]
	clear(out)
	if T == 1 {
		m.moeDecode(mw, s, out, k)
	} else {
		m.moePrefill(mw, s, out, T, k)
	}
	if mw.shared != nil {
		m.expertFFN(mw.shared, b.xn, s.ys, T)       // shared(x) [T, h]
		m.project(&mw.sharedGate, s.gamma, b.xn, T) // w_sg·x [T, 1]
		for t := range T {
			gamma := float32(1 / (1 + math.Exp(-float64(s.gamma[t])))) // σ(w_sg·x)
			kernels.Axpy(out[t*h:(t+1)*h], gamma, s.ys[t*h:(t+1)*h])
		}
	}
}

// moePrefill runs the T tokens grouped by expert: each chosen expert's
// matrices are read once for all its tokens. The experts with integer
// kernels and fewer than q8Tokens tokens run first, all together, on the
// tokens' inputs rounded to 8 bits as decode does (expertsQ8); each other
// expert widens its weights once for all its tokens (expertFFN). The
// terms are added in ascending expert id either way.
func (m *Model) moePrefill(mw *moeWeights, s *moeScratch, out []float32, T, k int) {
	c, b, h := m.cfg.MoE, &m.buf, m.cfg.HiddenSize
	f := &s.few
	f.experts, f.first = f.experts[:0], f.first[:0]
	if mw.integerExperts() {
		m.pool.For(T, func(_, lo, hi int) { // each token's input x rounded once, for all its experts
			for t := lo; t < hi; t++ {
				s.xqT[t].Quantize(b.xn[t*h : (t+1)*h])
			}
		})
		S := 0
		for e := range c.Experts {
			if n := s.routedTo(e, T, k); n > 0 && n < q8Tokens {
				f.grow(S+n, c.ExpertSize, h)
				f.experts, f.first = append(f.experts, e), append(f.first, S)
				S += copy(f.tokens[S:], s.rows)
			}
		}
		f.first = append(f.first, S)
		m.expertsQ8(mw, s)
	}
	few := 0 // f.experts[few] is the next expert run together
	for e := range c.Experts {
		var ys []float32 // [n, h]
		if few < len(f.experts) && f.experts[few] == e {
			s.rows = append(s.rows[:0], f.tokens[f.first[few]:f.first[few+1]]...)
			ys = f.ys[f.first[few]*h:]
			few++
		} else if n := s.routedTo(e, T, k); n > 0 {
			for i, t := range s.rows { // gather the routed tokens' inputs [n, h]
				copy(s.xs[i*h:(i+1)*h], b.xn[t*h:(t+1)*h])
			}
			m.expertFFN(&mw.experts[e], s.xs, s.ys, n)
			ys = s.ys
		}
		for i, t := range s.rows { // none when no token chose e
			g := s.weights[t*k+slices.Index(s.ids[t*k:(t+1)*k], e)]
			kernels.Axpy(out[t*h:(t+1)*h], g, ys[i*h:(i+1)*h]) // out += g_e·y_e
		}
	}
}

// routedTo lists in s.rows the tokens (of T) that chose expert e, and
// counts them.
func (s *moeScratch) routedTo(e, T, k int) int {
	s.rows = s.rows[:0]
	for t := range T {
		if slices.Contains(s.ids[t*k:(t+1)*k], e) {
			s.rows = append(s.rows, t)
		}
	}
	return len(s.rows)
}

// moeDecode runs one token's k experts together: their gate and up rows
// in one parallel loop, their down rows in another (two barriers where
// expert by expert would take 2k), reading only the chosen experts.
// Terms are added in ascending expert id, as prefill adds them.
func (m *Model) moeDecode(mw *moeWeights, s *moeScratch, out []float32, k int) {
	c, b, h := m.cfg.MoE, &m.buf, m.cfg.HiddenSize
	I := c.ExpertSize
	order := slices.Clone(s.ids[:k])
	slices.Sort(order)
	ps := make([]projection, 0, 2*k)
	downs := make([]rowsJob, 0, k)
	for i, e := range order {
		ew := &mw.experts[e]
		ps = append(ps, projection{&ew.gate, s.gate[i*I : (i+1)*I]}, projection{&ew.up, s.up[i*I : (i+1)*I]})
		downs = append(downs, rowsJob{&ew.down, s.gate[i*I : (i+1)*I], s.ys[i*h : (i+1)*h], &s.xq[i]})
	}
	m.projectAll(b.xn, 1, ps...)                            // [k, I] gate and up
	kernels.SiLUMul(s.gate[:k*I], s.gate[:k*I], s.up[:k*I]) // silu(gate)·up
	m.vecEach(downs)                                        // [k, h] y_e
	for i, e := range order {
		g := s.weights[slices.Index(s.ids[:k], e)]
		kernels.Axpy(out, g, s.ys[i*h:(i+1)*h]) // out += g_e·y_e
	}
}

// rowsJob is one matrix-vector product of vecEach: out = w·in, with xq
// the scratch for in rounded to 8 bits when w has an integer kernel.
type rowsJob struct {
	w       *mat
	in, out []float32
	xq      *kernels.QuantizedX
}

// vecEach runs matrix-vector products with different inputs as one
// parallel loop over all their rows; each row is the dot product vec
// would compute.
func (m *Model) vecEach(jobs []rowsJob) {
	total := 0
	xq := make([]*kernels.QuantizedX, len(jobs))
	for i, j := range jobs {
		total += j.w.rows
		if j.w.integer() {
			xq[i] = j.xq
			xq[i].Quantize(j.in[:j.w.cols])
		}
	}
	m.pool.For(total, func(_, lo, hi int) {
		off := 0
		for i, j := range jobs {
			if a, z := max(lo, off), min(hi, off+j.w.rows); a < z {
				j.w.vecRowsX(j.out, j.in[:j.w.cols], xq[i], a-off, z-off)
			}
			off += j.w.rows
		}
	})
}

// expertFFN is one SwiGLU expert over x [n, h] into y [n, h]:
// down(silu(gate·x) ⊙ up·x), with the MLP kernels of swiGLU.
func (m *Model) expertFFN(ew *expertWeights, x, y []float32, n int) {
	s, I := &m.moeBuf, ew.gate.rows
	m.projectAll(x, n, projection{&ew.gate, s.gate}, projection{&ew.up, s.up}) // [n, I] each
	kernels.SiLUMul(s.gate[:n*I], s.gate[:n*I], s.up[:n*I])                    // silu(gate)·up, in place
	m.project(&ew.down, y, s.gate, n)                                          // [n, h]
}

// route turns one token's router logits z [E] into the softmax p [E]
// (fp32, over all experts), the k chosen experts ids (p desc, id asc) and
// their weights: p, or p renormalised over the k when norm is set.
func route(z, p []float32, ids []int, weights []float32, norm bool) {
	copy(p, z)
	kernels.Softmax(p) // p = exp(z − max z) / Σ exp(z − max z) in fp32
	order := make([]int, len(p))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(p[b], p[a]) }) // ties: lower id first
	copy(ids, order[:len(ids)])
	var sum float32
	for i, e := range ids {
		weights[i] = p[e]
		sum += p[e]
	}
	if norm {
		for i := range weights {
			weights[i] /= sum
		}
	}
}

// captureExperts records the router's decision at (layer l, position pos)
// when pos is captured: ids best first, the weights applied, p over all
// experts.
func (pr *probes) captureExperts(l, pos int, ids []int, weights, p []float32) {
	if pr == nil || pr.experts == nil {
		return
	}
	c := pr.experts[pos]
	if c == nil {
		return
	}
	*c = append(*c, trace.Routing{Layer: l, IDs: slices.Clone(ids), Weights: slices.Clone(weights), Probs: slices.Clone(p)})
}

// expertsPerToken is the k a forward call runs: the probes' forced
// smaller top-k, else the model's.
func (pr *probes) expertsPerToken(k int) int {
	if pr != nil && pr.topK > 0 {
		return pr.topK
	}
	return k
}

// expertsOffIn lists the experts of layer l masked out of the router.
func (pr *probes) expertsOffIn(l int) []int {
	if pr == nil || l >= len(pr.expertsOff) {
		return nil
	}
	return pr.expertsOff[l]
}
