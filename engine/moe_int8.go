package engine

// The MoE block's integer path: when every expert is stored in an integer
// format (Q8_0, Q4_K, ...), a prefill's tokens are rounded to 8 bits once
// and each expert's rows are multiplied in integers for all the tokens
// routed to it (moe.go's moePrefill and moeDecode call it).

import "loupe/kernels"

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
				kernels.MatMulQ8(w.qt, p.out[a:], w.rows, w.q[a*rb:e*rb], p.xs) // MatVecQ8 for each input
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
