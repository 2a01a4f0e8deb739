package engine

import "loupe/trace"

// probes are what one forward call records or changes besides its logits.
// A nil *probes, or a zero one, records nothing: every hook starts with a
// map or slice lookup that fails fast, so probes cost nothing when off.
type probes struct {
	allLogits  bool                     // output head for every row, not only the last
	attn       map[int]*trace.Attention // query position → weights [L][H][pos+1]
	mlp        map[[2]int]*trace.MLP    // (layer, pos) → silu(gate)·up [I]
	ablate     [][]int                  // layer → query heads zeroed before o_proj
	deltaNet   map[int]*trace.DeltaNet  // Gated DeltaNet layer → α, β, state norms (deltanet.go)
	resid      map[int][][]float32      // position → [L][h] residual stream after each layer's MLP
	experts    map[int]*[]trace.Routing // position → the router's choice in each MoE layer (moe.go)
	expertsOff [][]int                  // layer → experts masked out of the router's choice
	topK       int                      // experts per token in place of the model's k; 0: the model's
}

// newAttention allocates the capture of one query position: [L][H][pos+1].
func newAttention(L, H, pos int) *trace.Attention {
	a := &trace.Attention{QueryPos: pos, Weights: make([][][]float32, L)}
	flat := make([]float32, L*H*(pos+1))
	for l := range L {
		a.Weights[l] = make([][]float32, H)
		for qh := range H {
			o := (l*H + qh) * (pos + 1)
			a.Weights[l][qh] = flat[o : o+pos+1 : o+pos+1]
		}
	}
	return a
}

// newAttentionCapture is newAttention for this model: layers without
// attention (Gated DeltaNet) are nil and take no memory.
func (m *Model) newAttentionCapture(pos int) *trace.Attention {
	c := &m.cfg
	L, H := c.NumHiddenLayers, c.NumAttentionHeads
	a := &trace.Attention{QueryPos: pos, Weights: make([][][]float32, L)}
	flat := make([]float32, m.kvLayers()*H*(pos+1))
	o := 0
	for l := range L {
		if m.kvSlot != nil && m.kvSlot[l] < 0 {
			continue
		}
		a.Weights[l] = make([][]float32, H)
		for qh := range H {
			a.Weights[l][qh] = flat[o : o+pos+1 : o+pos+1]
			o += pos + 1
		}
	}
	return a
}

// captureAttention copies one kq_soft_max row (keys 0…pos) when pos is
// captured. Called concurrently for distinct heads: each writes its own row.
func (pr *probes) captureAttention(l, qh, pos int, row []float32) {
	if pr == nil || pr.attn == nil {
		return
	}
	if a := pr.attn[pos]; a != nil {
		copy(a.Weights[l][qh], row)
	}
}

// counterfactual reports whether pr changes the model's computation
// (heads or experts switched off, fewer experts per token), not only
// records it.
func (pr *probes) counterfactual() bool {
	if pr == nil {
		return false
	}
	off := false
	for _, es := range pr.expertsOff {
		off = off || len(es) > 0
	}
	return len(pr.ablate) > 0 || off || pr.topK > 0
}

// captureMLP copies silu(gate)·up of (layer, pos) when it is captured.
func (pr *probes) captureMLP(l, pos int, act []float32) {
	if pr == nil || pr.mlp == nil {
		return
	}
	if c := pr.mlp[[2]int{l, pos}]; c != nil {
		c.Values = append(c.Values[:0], act...)
	}
}

// ablated lists the heads of layer l whose output is zeroed.
func (pr *probes) ablated(l int) []int {
	if pr == nil || l >= len(pr.ablate) {
		return nil
	}
	return pr.ablate[l]
}

// captureResidual copies the residual stream x [T, h] of the rows at
// positions pos0… that are captured, after layer l (its MLP added): the
// logit lens reads it.
func (pr *probes) captureResidual(l, pos0 int, x []float32, h int) {
	if pr == nil || pr.resid == nil {
		return
	}
	for t := range len(x) / h {
		if r := pr.resid[pos0+t]; r != nil {
			r[l] = append(r[l][:0], x[t*h:(t+1)*h]...)
		}
	}
}
