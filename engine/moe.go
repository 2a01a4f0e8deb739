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
// shared-expert width, T tokens in this call.

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"loupe/kernels"
	"loupe/trace"
)

// maxExperts is llama.cpp's LLAMA_MAX_EXPERTS.
const maxExperts = 1024

// MoEConfig is what a mixture-of-experts model adds to Config
// (docs/spec/moe.md §3).
type MoEConfig struct {
	Experts    int    // E: num_experts
	TopK       int    // k: num_experts_per_tok
	ExpertSize int    // I of each expert (moe_intermediate_size; OLMoE: intermediate_size)
	SharedSize int    // I_s of the shared expert (Qwen3.5-MoE); 0: none
	NormTopK   bool   // renormalise the k weights to sum to 1 (norm_topk_prob)
	Dense      []bool // [L] layers whose FFN is a dense SwiGLU of intermediate_size (Qwen3-MoE); nil: none
}

// sparse reports whether layer l runs the MoE block.
func (c *MoEConfig) sparse(l int) bool { return c.Dense == nil || !c.Dense[l] }

// validate is docs/spec/moe.md §4.3 items 1 and 4 on the parsed numbers.
func (c *MoEConfig) validate(layers int) error {
	switch {
	case c.Experts < 1 || c.Experts > maxExperts:
		return fmt.Errorf("%w: num_experts = %d (want 1…%d)", ErrBadFile, c.Experts, maxExperts)
	case c.TopK < 1 || c.TopK > c.Experts:
		return fmt.Errorf("%w: num_experts_per_tok = %d (want 1…num_experts %d)", ErrBadFile, c.TopK, c.Experts)
	case c.ExpertSize < 1 || c.ExpertSize > maxDim:
		return fmt.Errorf("%w: expert intermediate size = %d (want 1…%d)", ErrBadFile, c.ExpertSize, maxDim)
	case c.SharedSize < 0 || c.SharedSize > maxDim:
		return fmt.Errorf("%w: shared_expert_intermediate_size = %d (want 0…%d)", ErrBadFile, c.SharedSize, maxDim)
	case c.Dense != nil && len(c.Dense) != layers:
		return fmt.Errorf("%w: %d dense-layer flags for %d layers", ErrBadFile, len(c.Dense), layers)
	}
	return nil
}

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

// fewTokens holds the experts a prefill runs in integers, all together
// (expertsQ8): the pairs (expert, token) in ascending expert id, then
// token, S of them, and their activations.
type fewTokens struct {
	experts  []int                 // the experts, ascending
	first    []int                 // [len(experts)+1] where each expert's pairs start
	tokens   []int                 // [S] the token of each pair
	in       []*kernels.QuantizedX // [S] the input each pair's product reads
	xqD      []kernels.QuantizedX  // [S] silu(gate)·up rounded to 8 bits
	gate, up []float32             // [S, I]
	ys       []float32             // [S, h] y_e of each pair
}

// grow sizes the buffers for S pairs of experts of width I, h wide,
// keeping the tokens listed so far.
func (f *fewTokens) grow(S, I, h int) {
	if len(f.tokens) < S {
		S = max(S, 2*len(f.tokens))
		f.tokens = append(f.tokens, make([]int, S-len(f.tokens))...)
		f.in, f.xqD = make([]*kernels.QuantizedX, S), make([]kernels.QuantizedX, S)
		f.gate, f.up, f.ys = make([]float32, S*I), make([]float32, S*I), make([]float32, S*h)
	}
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

// expertsQ8 runs the experts of s.few, each on its tokens' inputs
// already rounded to 8 bits (s.xqT), with the integer kernels: y_e of
// every pair (expert, token) into s.few.ys. All their gate and up rows
// go in one parallel loop, all their down rows in another, as decode
// runs its k experts: three barriers a layer where expert by expert took
// three per expert. On OLMoE-1B-7B's Q8_0 experts a 17-token prefill
// gives each chosen expert about two tokens; widening the expert to fp32
// for them (MatMulQ) cost more than the products themselves.
func (m *Model) expertsQ8(mw *moeWeights, s *moeScratch) {
	f, I := &s.few, m.cfg.MoE.ExpertSize
	if len(f.experts) == 0 {
		return
	}
	S := f.first[len(f.experts)]
	for i, t := range f.tokens[:S] {
		f.in[i] = &s.xqT[t]
	}
	ps := make([]q8Product, 0, 2*len(f.experts))
	for j, e := range f.experts {
		lo, hi := f.first[j], f.first[j+1]
		ew := &mw.experts[e]
		ps = append(ps, q8Product{&ew.gate, f.gate[lo*I:], f.in[lo:hi]}, q8Product{&ew.up, f.up[lo*I:], f.in[lo:hi]})
	}
	m.projectQ8(ps)                     // [S, I] gate and up
	m.pool.For(S, func(_, lo, hi int) { // silu(gate)·up, rounded to 8 bits per pair
		for i := lo; i < hi; i++ {
			g := f.gate[i*I : (i+1)*I]
			kernels.SiLUMul(g, g, f.up[i*I:(i+1)*I])
			f.xqD[i].Quantize(g)
			f.in[i] = &f.xqD[i]
		}
	})
	ps = ps[:0]
	for j, e := range f.experts {
		lo, hi := f.first[j], f.first[j+1]
		ps = append(ps, q8Product{&mw.experts[e].down, f.ys[lo*m.cfg.HiddenSize:], f.in[lo:hi]})
	}
	m.projectQ8(ps) // [S, h] y_e
}

// q8Product is one matrix of projectQ8 and the inputs it meets: out[i·rows
// + r] = Σ_c W[r][c]·x̂_i[c].
type q8Product struct {
	w   *mat
	out []float32
	xs  []*kernels.QuantizedX
}

// q8Tokens is the batch from which widening an expert's weights to fp32
// (MatMulQ, then the fp32 matrix kernel) costs less per token than the
// integer products one token at a time. One OLMoE-1B-7B-shaped Q8_0
// expert, one thread, milliseconds per token (integer / widened), on a
// busy machine: 0.60 / 2.23 for 2 tokens, 0.45 / 0.60 for 8, 0.40 / 0.41
// for 16, 0.35 / 0.30 for 32, 0.35 / 0.23 for 64.
const q8Tokens = 16

// q8Band rows of a matrix meet every input of projectQ8 before the next
// band: 16 rows of 2,048 Q8_0 columns are 34 KiB, inside Zen 5's 48 KiB L1.
const q8Band = 16

// projectQ8 computes each product p of ps with the integer kernels, the
// inputs already rounded to 8 bits. The workers split the rows of all the
// matrices; each band of q8Band rows stays in cache while every input of
// its product meets it, so the weights are read from memory once for all
// the inputs. Each output is the dot product decode computes.
func (m *Model) projectQ8(ps []q8Product) {
	total := 0
	for _, p := range ps {
		total += p.w.rows
	}
	m.pool.For(total, func(_, lo, hi int) {
		off := 0
		for _, p := range ps {
			w, rb := p.w, p.w.qt.RowBytes(p.w.cols)
			for a, z := max(lo, off)-off, min(hi, off+w.rows)-off; a < z; a += q8Band {
				e := min(z, a+q8Band)
				for i, x := range p.xs {
					kernels.MatVecQ8(w.qt, p.out[i*w.rows+a:i*w.rows+e], w.q[a*rb:e*rb], x)
				}
			}
			off += w.rows
		}
	})
}

// integerExperts reports whether every expert matrix has an integer
// kernel at the active level (not under kernels.Exact).
func (mw *moeWeights) integerExperts() bool {
	for i := range mw.experts {
		if e := &mw.experts[i]; !e.gate.integer() || !e.up.integer() || !e.down.integer() {
			return false
		}
	}
	return len(mw.experts) > 0
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

// loadMoE views a sparse layer's FFN under p ("…layers.i.mlp."): the
// router, the E experts in any of the spellings of docs/spec/moe.md §4
// (per-expert tensors, the fused gate_up_proj/down_proj pair, or GGUF's
// stacked ffn_*_exps), and the shared expert when the config has one.
func loadMoE(ld *loader, cfg Config, p string) *moeWeights {
	c, h := cfg.MoE, cfg.HiddenSize
	E, I := c.Experts, c.ExpertSize
	mw := &moeWeights{router: ld.matrix(p+"gate.weight", E, h)}
	// The router's products keep fp32 activations (llama.cpp keeps it in
	// F32): bf16-rounded inputs flip near-ties, and one flipped expert
	// moves the logits by O(0.1) (docs/spec/moe.md §7 item 9).
	mw.router.exactIn = true
	has := func(name string) bool { _, ok := ld.set.Tensor(name); return ok }
	perExpert := has(p + "experts.0.gate_proj.weight")
	switch {
	case has(p+"experts.gate_up_proj") && perExpert:
		ld.fail(fmt.Errorf("%w: %sexperts has both the fused gate_up_proj and per-expert tensors", ErrBadFile, p))
	case has(p + "experts.gate_up_proj"): // [E, 2I, h]: per expert I gate rows, then I up rows
		gu, down := ld.stacked(p+"experts.gate_up_proj", E, 2*I, h), ld.stacked(p+"experts.down_proj", E, h, I)
		for e := range min(len(gu), len(down)) {
			mw.experts = append(mw.experts, expertWeights{gate: gu[e].rowRange(0, I), up: gu[e].rowRange(I, 2*I), down: down[e]})
		}
	case has(p + "experts.gate_proj"): // GGUF: ffn_{gate,up,down}_exps, [E, I, h] and [E, h, I]
		g, u, d := ld.stacked(p+"experts.gate_proj", E, I, h), ld.stacked(p+"experts.up_proj", E, I, h), ld.stacked(p+"experts.down_proj", E, h, I)
		for e := range min(len(g), len(u), len(d)) {
			mw.experts = append(mw.experts, expertWeights{gate: g[e], up: u[e], down: d[e]})
		}
	default:
		for e := range E {
			q := fmt.Sprintf("%sexperts.%d.", p, e)
			mw.experts = append(mw.experts, expertWeights{gate: ld.matrix(q+"gate_proj.weight", I, h),
				up: ld.matrix(q+"up_proj.weight", I, h), down: ld.matrix(q+"down_proj.weight", h, I)})
		}
		ld.refuseExtraExperts(p, E)
	}
	if c.SharedSize > 0 {
		q, Is := p+"shared_expert.", c.SharedSize
		mw.shared = &expertWeights{gate: ld.matrix(q+"gate_proj.weight", Is, h), up: ld.matrix(q+"up_proj.weight", Is, h),
			down: ld.matrix(q+"down_proj.weight", h, Is)}
		mw.sharedGate = ld.matrix(p+"shared_expert_gate.weight", 1, h)
	}
	return mw
}

// refuseExtraExperts refuses per-expert tensors numbered E or above: an
// expert the router cannot choose means the file and config disagree.
func (ld *loader) refuseExtraExperts(p string, E int) {
	for _, n := range ld.set.Names() {
		var e int
		var rest string
		if len(n) > len(p) && n[:len(p)] == p {
			if k, _ := fmt.Sscanf(n[len(p):], "experts.%d.%s", &e, &rest); k == 2 && e >= E {
				ld.fail(fmt.Errorf("%w: tensor %q: expert %d, but num_experts is %d", ErrBadFile, n, e, E))
				return
			}
		}
	}
}

// matrices lists the block's matrices read every token: the router and
// the shared expert (the routed experts are counted apart).
func (mw *moeWeights) matrices() []*mat {
	out := []*mat{&mw.router}
	if sh := mw.shared; sh != nil {
		out = append(out, &sh.gate, &sh.up, &sh.down, &mw.sharedGate)
	}
	return out
}

// expertBytes is what the k chosen experts of one token read: k times the
// mean size of an expert (all experts of a layer have one size and dtype
// in every file we know; the mean keeps a mixed file honest).
func (mw *moeWeights) expertBytes(k int) int64 {
	var all int64
	for i := range mw.experts {
		e := &mw.experts[i]
		all += e.gate.bytes() + e.up.bytes() + e.down.bytes()
	}
	return all * int64(k) / int64(max(1, len(mw.experts)))
}

// moeParams counts one sparse layer's FFN parameters with n experts (E
// for the total, k for the active): the router [E, h], n experts of
// 3·h·I, and the shared expert with its gate.
func moeParams(c *MoEConfig, h int64, n int) int64 {
	p := int64(c.Experts)*h + int64(n)*3*h*int64(c.ExpertSize)
	if c.SharedSize > 0 {
		p += 3*h*int64(c.SharedSize) + h
	}
	return p
}

// mlpParams counts the FFN parameters of every layer with n experts per
// sparse layer (E: all of them; k: what one token reads) and dense layers
// whole.
func (c *Config) mlpParams(n int) int64 {
	h, I := int64(c.HiddenSize), int64(c.IntermediateSize)
	var p int64
	for l := range c.NumHiddenLayers {
		if c.MoE.sparse(l) {
			p += moeParams(c.MoE, h, n)
		} else {
			p += 3 * h * I
		}
	}
	return p
}

// expertGating checks the GGUF keys llama.cpp does not read for these
// architectures (docs/spec/moe.md §4.2): when present they must say what
// the architecture does — softmax gating (1), renormalisation as norm, no
// scale, no expert groups.
func (r *ggufReader) expertGating(norm bool) error {
	if r.err != nil {
		return r.err
	}
	f, p := r.f, r.prefix
	bad := func(key string, v any, want string) error {
		return fmt.Errorf("%w: %s: %s%s = %v (this architecture uses %s)", ErrUnsupported, f.Path, p, key, v, want)
	}
	if g, ok, err := f.Int(p+"expert_gating_func", 0, 16); err != nil {
		return fmt.Errorf("%w: %w", ErrBadFile, err)
	} else if ok && g != 1 {
		return bad("expert_gating_func", g, "1 (softmax)")
	}
	if b, ok, err := f.Bool(p + "expert_weights_norm"); err != nil {
		return fmt.Errorf("%w: %w", ErrBadFile, err)
	} else if ok && b != norm {
		return bad("expert_weights_norm", b, fmt.Sprint(norm))
	}
	if s, ok, err := f.Float(p + "expert_weights_scale"); err != nil {
		return fmt.Errorf("%w: %w", ErrBadFile, err)
	} else if ok && s != 0 && s != 1 {
		return bad("expert_weights_scale", s, "1")
	}
	if n, ok, err := f.Int(p+"expert_group_count", 0, maxExperts); err != nil {
		return fmt.Errorf("%w: %w", ErrBadFile, err)
	} else if ok && n > 1 {
		return bad("expert_group_count", n, "no groups")
	}
	return nil
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

// checkExperts refuses a counterfactual the model cannot run: experts
// switched off outside its MoE layers, a top-k outside 1…k, or a layer
// left with fewer experts than a token runs.
func (m *Model) checkExperts(off []trace.Expert, topK int) error {
	c, L := m.cfg.MoE, m.cfg.NumHiddenLayers
	if c == nil {
		if len(off) > 0 || topK != 0 {
			return fmt.Errorf("%w: this model has no experts to switch off or top-k to change", ErrSettings)
		}
		return nil
	}
	k := c.TopK
	if topK != 0 {
		if topK < 1 || topK > c.TopK {
			return fmt.Errorf("%w: top-k experts %d (want 1…%d, the model's k)", ErrSettings, topK, c.TopK)
		}
		k = topK
	}
	for _, e := range off {
		switch {
		case e.Layer < 0 || e.Layer >= L:
			return fmt.Errorf("%w: expert %d:%d: layer %d is out of range (the model has %d layers, 0…%d)", ErrSettings, e.Layer, e.Expert, e.Layer, L, L-1)
		case !c.sparse(e.Layer):
			return fmt.Errorf("%w: expert %d:%d: layer %d is a dense layer, it has no experts", ErrSettings, e.Layer, e.Expert, e.Layer)
		case e.Expert < 0 || e.Expert >= c.Experts:
			return fmt.Errorf("%w: expert %d:%d: expert %d is out of range (the model has %d experts per layer, 0…%d)", ErrSettings, e.Layer, e.Expert, e.Expert, c.Experts, c.Experts-1)
		}
	}
	for l, es := range trace.ExpertsOff(off, L) {
		if c.Experts-len(es) < k {
			return fmt.Errorf("%w: layer %d keeps %d experts with %d switched off, fewer than the %d a token runs", ErrSettings, l, c.Experts-len(es), len(es), k)
		}
	}
	return nil
}
