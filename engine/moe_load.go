package engine

// A mixture-of-experts model's configuration (docs/spec/moe.md §4), the
// loading and checks of its expert tensors, and its parameter counts; the
// block itself is moe.go, its integer path moe_int8.go.

import (
	"fmt"

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
