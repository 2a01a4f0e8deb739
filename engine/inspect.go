package engine

// Inspect: what one position looks like inside the model, for the
// Embedding, KV cache, Logit lens and Attention panels and for
// `loupe inspect`. Both call the same functions.
//
// Nothing is kept from the generation: the position is recomputed on
// demand. When the KV cache already holds the sequence before pos (after a
// Generate or an earlier Inspect of the same tokens), that is one decode
// step at pos against the cache — the cost of one generated token: one
// pass over the weights (3.1 GB for Qwen2.5-1.5B, about 70 ms at 45 GB/s)
// plus pos+1 cached keys and values per layer — whatever the prompt's
// length up to the model's context. Otherwise the tokens up to pos are
// prefilled first (the cost of reading a prompt of pos tokens).

import (
	"context"
	"fmt"
	"slices"

	"loupe/engine/sample"
	"loupe/kernels"
	"loupe/trace"
)

// InspectOptions choose the KV rows Inspect returns and the logit lens's
// depth. Layer and KVHead are indices from 0.
type InspectOptions struct {
	Layer, KVHead int
	LensTop       int // candidates per layer of the logit lens (0: 5)
	// DisableExperts and TopKExperts are GenerateOptions' counterfactual
	// of an MoE model, applied at every position up to pos (the cache of
	// the model left alone is then not used).
	DisableExperts []trace.Expert
	TopKExperts    int
	Kernels        kernels.Choice // as GenerateOptions.Kernels: the run inspected's, to see its numbers
}

// Inspect recomputes position pos of the sequence ids (ids[pos] is the
// token looked at; later ids are ignored). Errors name the bad argument
// and wrap ErrSettings; cancellation of ctx returns its error.
func (m *Model) Inspect(ctx context.Context, ids []int, pos int, opt InspectOptions) (_ *trace.Inspection, err error) {
	defer recoverError(&err)
	if err := m.checkInspect(ids, pos, opt); err != nil {
		return nil, err
	}
	restore, err := useKernels(opt.Kernels)
	if err != nil {
		return nil, err
	}
	defer restore()
	c := &m.cfg
	pr := &probes{
		attn:  map[int]*trace.Attention{pos: m.newAttentionCapture(pos)}, // DeltaNet layers: null, not rows of zeros
		mlp:   map[[2]int]*trace.MLP{},
		resid: map[int][][]float32{pos: make([][]float32, c.NumHiddenLayers)},
	}
	pr.expertsOff, pr.topK = trace.ExpertsOff(opt.DisableExperts, c.NumHiddenLayers), opt.TopKExperts
	for l := range c.NumHiddenLayers {
		pr.mlp[[2]int{l, pos}] = &trace.MLP{Layer: l, Pos: pos}
	}
	var routes []trace.Routing
	if c.MoE != nil {
		pr.experts = map[int]*[]trace.Routing{pos: &routes}
	}
	if err := m.runTo(ctx, ids[:pos+1], pr); err != nil {
		return nil, err
	}
	in := &trace.Inspection{
		Pos:           pos,
		Token:         trace.Token{ID: ids[pos], Text: m.TokenText(ids[pos]), Pos: pos},
		Embedding:     m.Embedding(ids[pos]),
		EmbeddingRows: m.w.embed.rows,
		Tied:          c.TieWordEmbeddings,
		Attention:     *pr.attn[pos],
		KV:            m.KVRows(opt.Layer, opt.KVHead, pos+1),
		Experts:       routes,
	}
	if pr.counterfactual() { // the rows this call wrote, which the cache disowns
		in.KV = m.kvRows(opt.Layer, opt.KVHead, pos+1)
	}
	for l := range c.NumHiddenLayers {
		in.MLP = append(in.MLP, *pr.mlp[[2]int{l, pos}])
	}
	top := opt.LensTop
	if top <= 0 {
		top = 5
	}
	in.Lens = m.logitLens(pr.resid[pos], top)
	return in, nil
}

// checkInspect refuses a position, layer or KV head out of range.
func (m *Model) checkInspect(ids []int, pos int, opt InspectOptions) error {
	c := &m.cfg
	switch {
	case len(ids) == 0:
		return fmt.Errorf("%w: no tokens to inspect", ErrSettings)
	case pos < 0 || pos >= len(ids):
		return fmt.Errorf("%w: position %d out of range: the sequence has %d tokens (positions 0…%d)", ErrSettings, pos, len(ids), len(ids)-1)
	case pos >= c.MaxPositionEmbeddings:
		return fmt.Errorf("%w: position %d beyond the model's context of %d", ErrContext, pos, c.MaxPositionEmbeddings)
	case opt.Layer < 0 || opt.Layer >= c.NumHiddenLayers:
		return fmt.Errorf("%w: layer %d out of range: the model has %d layers (0…%d)", ErrSettings, opt.Layer, c.NumHiddenLayers, c.NumHiddenLayers-1)
	case opt.KVHead < 0 || opt.KVHead >= c.NumKeyValueHeads:
		return fmt.Errorf("%w: KV head %d out of range: the model has %d KV heads (0…%d)", ErrSettings, opt.KVHead, c.NumKeyValueHeads, c.NumKeyValueHeads-1)
	}
	for _, id := range ids[:pos+1] {
		if id < 0 || id >= c.VocabSize {
			return fmt.Errorf("%w: token id %d out of the vocabulary (%d)", ErrSettings, id, c.VocabSize)
		}
	}
	return m.checkExperts(opt.DisableExperts, opt.TopKExperts)
}

// runTo runs the last token of seq at position len(seq)-1 with probes pr,
// reusing the cache when it holds seq[:len-1] (m.kv), else prefilling
// seq[:len-1] in chunks first. When the cache already held that position,
// its keys and values are put back afterwards, so the cache of a finished
// run stays as the run left it (a decode step rounds differently from the
// prefill that wrote it). A model with a recurrent state (Qwen3.5's
// DeltaNet layers) cannot rewind it: it reuses the cache only when the
// cache ends exactly before pos. A counterfactual pr (experts switched
// off) runs every position with it, never from the cache.
func (m *Model) runTo(ctx context.Context, seq []int, pr *probes) error {
	pos := len(seq) - 1
	m.reserveContext(len(seq))
	var before *probes // what the positions before pos run with: the counterfactual only
	if pr.counterfactual() {
		before = &probes{ablate: pr.ablate, expertsOff: pr.expertsOff, topK: pr.topK}
	}
	if before != nil || !m.cacheHolds(seq[:pos]) {
		for lo := 0; lo < pos; lo += prefillChunk {
			hi := min(pos, lo+prefillChunk)
			if _, err := m.forward(ctx, seq[lo:hi], lo, before); err != nil {
				return err
			}
		}
	}
	held := slices.Clone(m.kv.ids)
	saved := m.saveKV(pos)
	if _, err := m.forward(ctx, seq[pos:], pos, pr); err != nil {
		return err
	}
	if before == nil && len(held) > pos && held[pos] == seq[pos] {
		m.restoreKV(pos, saved) // the cache held this position already
		m.kv.ids = append(m.kv.ids[:0], held...)
	}
	return nil
}

// cacheHolds reports whether the cache can serve prefix: it holds exactly
// prefix at its first positions, computed at the active kernel level, and
// (with a recurrent state) nothing after it.
func (m *Model) cacheHolds(prefix []int) bool {
	c := &m.kv
	if c.broken || c.level != kernels.Active() || c.arith != kernels.Arithmetic() || len(c.ids) < len(prefix) {
		return false
	}
	if m.info.StateBytes > 0 && len(c.ids) != len(prefix) {
		return false
	}
	return slices.Equal(c.ids[:len(prefix)], prefix)
}

// saveKV copies the cached keys and values of position pos, every layer
// and KV head: [L·KV][2][d]; nil when the cache does not reach pos.
func (m *Model) saveKV(pos int) []float32 {
	if pos >= m.ctxCap {
		return nil
	}
	c := &m.cfg
	d := c.HeadDim
	out := make([]float32, 0, 2*c.NumHiddenLayers*c.NumKeyValueHeads*d)
	for l := range c.NumHiddenLayers {
		for g := range c.NumKeyValueHeads {
			if !m.cachesKV(l) {
				continue
			}
			o := m.kvOffset(l, g, pos)
			out = append(out, m.kCache[o:o+d]...)
			out = append(out, m.vCache[o:o+d]...)
		}
	}
	return out
}

// restoreKV puts back what saveKV copied.
func (m *Model) restoreKV(pos int, saved []float32) {
	if saved == nil {
		return
	}
	c := &m.cfg
	d := c.HeadDim
	i := 0
	for l := range c.NumHiddenLayers {
		for g := range c.NumKeyValueHeads {
			if !m.cachesKV(l) {
				continue
			}
			o := m.kvOffset(l, g, pos)
			copy(m.kCache[o:o+d], saved[i:i+d])
			copy(m.vCache[o:o+d], saved[i+d:i+2*d])
			i += 2 * d
		}
	}
}

// cachesKV reports whether layer l has attention, and so cached keys and
// values (a hybrid model's DeltaNet layers have none: Model.kvSlot).
func (m *Model) cachesKV(l int) bool { return m.kvSlot == nil || m.kvSlot[l] >= 0 }

// CachedTokens is how many positions the KV cache holds (of the last
// Generate or Inspect); KVRows reads at most that many.
func (m *Model) CachedTokens() int {
	if m.kv.broken {
		return 0
	}
	return len(m.kv.ids)
}

// KVRows copies the cached keys (after RoPE) and values of one layer and
// KV head for positions 0…n-1: [n][d] each. Positions beyond the cache,
// or a layer or head out of range, give empty rows.
func (m *Model) KVRows(layer, kvHead, n int) trace.KVRows {
	return m.kvRows(layer, kvHead, min(n, m.CachedTokens()))
}

// kvRows is KVRows for positions 0…n-1 whatever m.kv says of them:
// Inspect under a counterfactual reads the rows it has just written,
// which no later call may reuse.
func (m *Model) kvRows(layer, kvHead, n int) trace.KVRows {
	c := &m.cfg
	out := trace.KVRows{Layer: layer, KVHead: kvHead}
	if layer < 0 || layer >= c.NumHiddenLayers || kvHead < 0 || kvHead >= c.NumKeyValueHeads {
		return out
	}
	d := c.HeadDim
	if !m.cachesKV(layer) {
		out.Note = fmt.Sprintf("layer %d is a Gated DeltaNet layer: no attention, so no keys or values are cached; its state is one matrix per head", layer)
		return out
	}
	n = min(n, m.ctxCap)
	for p := range n {
		o := m.kvOffset(layer, kvHead, p)
		out.Keys = append(out.Keys, slices.Clone(m.kCache[o:o+d]))
		out.Values = append(out.Values, slices.Clone(m.vCache[o:o+d]))
	}
	return out
}

// logitLens puts each layer's residual [h] through the final norm and the
// output head (as one [L, h] × [h, V] product) and keeps the top
// candidates of each softmax.
func (m *Model) logitLens(resid [][]float32, top int) []trace.LensLayer {
	h, V, L := m.cfg.HiddenSize, m.cfg.VocabSize, len(resid)
	xn := make([]float32, L*h)
	for l, x := range resid {
		kernels.RMSNorm(xn[l*h:(l+1)*h], x, m.w.outNorm, float32(m.cfg.RMSNormEps)) // result_norm
	}
	logits := make([]float32, L*V) // [L, V]
	m.w.output.mul(m.pool, logits, xn, L, nil, &m.buf.rx, &m.buf.xr)
	out := make([]trace.LensLayer, L)
	e := make([]float32, V)
	for l := range L {
		out[l] = trace.LensLayer{Layer: l}
		for _, c := range lensTop(logits[l*V:(l+1)*V], e, top) {
			c.Text = m.TokenText(c.ID)
			out[l].Top = append(out[l].Top, c)
		}
	}
	return out
}

// lensTop returns the n most probable entries of softmax(z), by P
// descending and ties by lower id (sample.Softmax; e is scratch [V]).
func lensTop(z, e []float32, n int) []trace.Candidate {
	total := sample.Softmax(e, z)
	ids := topIDs(z, n)
	out := make([]trace.Candidate, 0, n)
	for _, id := range ids {
		out = append(out, trace.Candidate{ID: id, P: float64(e[id]) / total})
	}
	return out
}

// topIDs are the ids of the n largest z, largest first, ties by lower id:
// one pass keeping a sorted list of n (n is small: the lens shows 5).
func topIDs(z []float32, n int) []int {
	n = min(n, len(z))
	best := make([]int, 0, n+1)
	for id, v := range z {
		if len(best) == n && !(v > z[best[n-1]]) {
			continue
		}
		i := len(best)
		for i > 0 && v > z[best[i-1]] {
			i--
		}
		best = slices.Insert(best, i, id)
		if len(best) > n {
			best = best[:n]
		}
	}
	return best
}

// stagesOf turns the sampler's record of one step into trace data (nil
// when none was recorded).
func (g *generation) stagesOf(st *sample.Stages) *trace.SamplerStages {
	if st == nil {
		return nil
	}
	out := &trace.SamplerStages{Greedy: st.Greedy, Logits: st.Logits, Drawn: st.Drawn, U: st.U}
	last := st.Stage[len(st.Stage)-1]
	for r, id := range st.IDs {
		out.Candidates = append(out.Candidates, trace.Candidate{ID: id, Text: g.m.TokenText(id), P: last.P[r]})
	}
	for _, s := range st.Stage {
		out.Stages = append(out.Stages, trace.SamplerStage{Name: s.Name, On: s.On, Kept: s.Kept, P: s.P})
	}
	return out
}
