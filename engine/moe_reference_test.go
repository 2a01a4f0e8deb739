package engine

// A plain float64 forward of the three MoE families written from
// docs/spec/moe.md §1–§2, sharing no code with the engine: router softmax
// over all experts, exact top-k by (p desc, id asc), the renormalisation
// each family does, per-expert SwiGLU read by name, OLMoE's full-width
// QK-norm, Qwen3.5-MoE's shared expert with its sigmoid gate. It is the
// oracle of moe_test.go.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"loupe/engine/deltanet"
	"loupe/kernels"
)

// tinyOlmoe: multi-head attention (H = KV = 4, d = h/H = 8), E = 8 experts
// of width 16, k = 2, weights not renormalised.
func tinyOlmoe() Config {
	return Config{
		Architecture: "OlmoeForCausalLM", ModelType: "olmoe",
		HiddenSize: 32, IntermediateSize: 16, NumHiddenLayers: 2,
		NumAttentionHeads: 4, NumKeyValueHeads: 4, HeadDim: 8,
		RMSNormEps: 1e-5, RopeTheta: 10000, MaxPositionEmbeddings: 256,
		VocabSize: 97, EOSTokenIDs: []int{96},
		MoE: &MoEConfig{Experts: 8, TopK: 2, ExpertSize: 16},
	}
}

// tinyQwen3Moe: Qwen3's attention (H·d = 64 ≠ h = 32, GQA 4/2), three
// layers of which the middle one is dense (mlp_only_layers [1]), E = 8,
// k = 3, renormalised.
func tinyQwen3Moe() Config {
	return Config{
		Architecture: "Qwen3MoeForCausalLM", ModelType: "qwen3_moe",
		HiddenSize: 32, IntermediateSize: 48, NumHiddenLayers: 3,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, HeadDim: 16,
		RMSNormEps: 1e-6, RopeTheta: 1e6, MaxPositionEmbeddings: 256,
		VocabSize: 97, EOSTokenIDs: []int{96},
		MoE: &MoEConfig{Experts: 8, TopK: 3, ExpertSize: 16, NormTopK: true, Dense: []bool{false, true, false}},
	}
}

// tinyQwen35Moe: the hybrid stack of tinyQwen35 (untied) with E = 6
// experts of width 16, k = 2, and a shared expert of width 24.
func tinyQwen35Moe() Config {
	c := tinyQwen35()
	c.Architecture, c.ModelType = "Qwen3_5MoeForConditionalGeneration", "qwen3_5_moe"
	c.TieWordEmbeddings, c.IntermediateSize = false, 16
	c.Qwen35 = &Qwen35Config{LayerTypes: slices.Clone(c.Qwen35.LayerTypes), Linear: deltanet.Dims{NK: 2, NV: 4, DK: 8, DV: 12, Conv: 4},
		PartialRotaryFactor: 0.5}
	c.MoE = &MoEConfig{Experts: 6, TopK: 2, ExpertSize: 16, SharedSize: 24, NormTopK: true}
	return c
}

// addRandom draws a tensor mean + std·N(0, 1), rounded to bf16.
func addRandom(r refTensors, rng *rand.Rand, name string, mean, std float64, shape ...int) {
	n := 1
	for _, s := range shape {
		n *= s
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(kernels.FromFloat32(float32(mean + std*rng.NormFloat64())).Float32())
	}
	r.val[name], r.shape[name] = v, shape
}

// randomMoEFFN draws a sparse layer's FFN under p ("…layers.i.mlp."): a
// wide router (std 3/√h, so the probabilities are far from uniform) and
// per-expert tensors named as on the Hub.
func randomMoEFFN(r refTensors, rng *rand.Rand, c *MoEConfig, h int, p string) {
	fan := func(n int) float64 { return 1 / math.Sqrt(float64(n)) }
	addRandom(r, rng, p+"gate.weight", 0, 3*fan(h), c.Experts, h)
	for e := range c.Experts {
		q := fmt.Sprintf("%sexperts.%d.", p, e)
		addRandom(r, rng, q+"gate_proj.weight", 0, fan(h), c.ExpertSize, h)
		addRandom(r, rng, q+"up_proj.weight", 0, fan(h), c.ExpertSize, h)
		addRandom(r, rng, q+"down_proj.weight", 0, fan(c.ExpertSize), h, c.ExpertSize)
	}
	if c.SharedSize > 0 {
		addRandom(r, rng, p+"shared_expert.gate_proj.weight", 0, fan(h), c.SharedSize, h)
		addRandom(r, rng, p+"shared_expert.up_proj.weight", 0, fan(h), c.SharedSize, h)
		addRandom(r, rng, p+"shared_expert.down_proj.weight", 0, fan(c.SharedSize), h, c.SharedSize)
		addRandom(r, rng, p+"shared_expert_gate.weight", 0, 2*fan(h), 1, h)
	}
}

// randomMoE draws every tensor of an OLMoE or Qwen3-MoE config.
func randomMoE(c Config, seed uint64) refTensors {
	rng := rand.New(rand.NewPCG(seed, 69))
	r := refTensors{val: map[string][]float64{}, shape: map[string][]int{}}
	h, d, V := c.HiddenSize, c.HeadDim, c.VocabSize
	qDim, kvDim := c.NumAttentionHeads*d, c.NumKeyValueHeads*d
	fan := func(n int) float64 { return 1 / math.Sqrt(float64(n)) }
	addRandom(r, rng, "model.embed_tokens.weight", 0, 1, V, h)
	for i := range c.NumHiddenLayers {
		p := fmt.Sprintf("model.layers.%d.", i)
		addRandom(r, rng, p+"input_layernorm.weight", 1, 0.1, h)
		addRandom(r, rng, p+"self_attn.q_proj.weight", 0, 2*fan(h), qDim, h)
		addRandom(r, rng, p+"self_attn.k_proj.weight", 0, 2*fan(h), kvDim, h)
		addRandom(r, rng, p+"self_attn.v_proj.weight", 0, fan(h), kvDim, h)
		addRandom(r, rng, p+"self_attn.o_proj.weight", 0, fan(qDim), h, qDim)
		if c.ModelType == "olmoe" { // full width
			addRandom(r, rng, p+"self_attn.q_norm.weight", 1, 0.3, qDim)
			addRandom(r, rng, p+"self_attn.k_norm.weight", 1, 0.3, kvDim)
		} else { // per head
			addRandom(r, rng, p+"self_attn.q_norm.weight", 1, 0.3, d)
			addRandom(r, rng, p+"self_attn.k_norm.weight", 1, 0.3, d)
		}
		addRandom(r, rng, p+"post_attention_layernorm.weight", 1, 0.1, h)
		if c.MoE.Dense != nil && c.MoE.Dense[i] {
			I := c.IntermediateSize
			addRandom(r, rng, p+"mlp.gate_proj.weight", 0, fan(h), I, h)
			addRandom(r, rng, p+"mlp.up_proj.weight", 0, fan(h), I, h)
			addRandom(r, rng, p+"mlp.down_proj.weight", 0, fan(I), h, I)
			continue
		}
		randomMoEFFN(r, rng, c.MoE, h, p+"mlp.")
	}
	addRandom(r, rng, "model.norm.weight", 1, 0.1, h)
	addRandom(r, rng, "lm_head.weight", 0, fan(h), V, h)
	return r
}

// randomQwen35Moe draws Qwen3.5's mixers and norms (randomQwen35) with an
// MoE FFN in every layer instead of the dense MLP.
func randomQwen35Moe(c Config, prefix string, seed uint64) refTensors {
	r := randomQwen35(c, prefix, seed)
	rng := rand.New(rand.NewPCG(seed, 351))
	for i := range c.NumHiddenLayers {
		p := fmt.Sprintf("%slayers.%d.mlp.", prefix, i)
		for _, n := range []string{"gate_proj.weight", "up_proj.weight", "down_proj.weight"} {
			delete(r.val, p+n)
			delete(r.shape, p+n)
		}
		randomMoEFFN(r, rng, c.MoE, c.HiddenSize, p)
	}
	return r
}

// refMoEMutation changes the reference the way a plausible bug would, to
// show the tests see it.
type refMoEMutation struct {
	flipNorm bool // renormalise when the model does not, and the reverse
	topK     int  // choose this many experts instead of k (0: k)
	// off masks experts of a layer out of the router (a counterfactual the
	// engine runs on request, not a bug): logit −∞ before the softmax.
	off        map[int][]int
	shift      bool // run expert (e+1) mod E where the router chose e
	swapGateUp bool // read gate_proj as up_proj and the reverse

	// force, when set, gives the experts to run at (layer, position)
	// instead of the top-k: the engine's own choice, where bf16-rounded
	// activations may legitimately flip a near-tie.
	force func(l, pos int) []int
}

// forced is force(l, pos), or nil.
func (m refMoEMutation) forced(l, pos int) []int {
	if m.force == nil {
		return nil
	}
	return m.force(l, pos)
}

// refRoute is the router's decision for one token.
type refRoute struct {
	ids     []int     // best first
	weights []float64 // as applied
	probs   []float64 // softmax over all experts
	margin  float64   // p of the k-th chosen − p of the best left out
}

// refMoEFFN is §1 for one token xn: out = Σ_chosen g_e·y_e (+ σ(w_sg·x)·
// shared(x)), with the experts off masked out of the router (§6).
func refMoEFFN(c *MoEConfig, w refTensors, p string, xn []float64, mut refMoEMutation, forced, off []int) ([]float64, refRoute) {
	E, k := c.Experts, c.TopK
	if mut.topK > 0 {
		k = mut.topK
	}
	z := refLinear(w.val[p+"gate.weight"], nil, xn)
	for _, e := range off {
		z[e] = math.Inf(-1) // p_e = 0: the others share its probability
	}
	probs := refSoftmax(z)
	order := make([]int, E)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case probs[a] > probs[b]:
			return -1
		case probs[a] < probs[b]:
			return 1
		}
		return a - b
	})
	rt := refRoute{ids: order[:k], probs: probs, margin: math.Inf(1)}
	if k < E {
		rt.margin = probs[order[k-1]] - probs[order[k]]
	}
	if forced != nil {
		rt.ids = forced
	}
	var sum float64
	for _, e := range rt.ids {
		sum += probs[e]
	}
	out := make([]float64, len(xn))
	for _, e := range rt.ids {
		g := probs[e]
		if c.NormTopK != mut.flipNorm {
			g /= sum
		}
		rt.weights = append(rt.weights, g)
		run := e
		if mut.shift {
			run = (e + 1) % E
		}
		q := fmt.Sprintf("%sexperts.%d.", p, run)
		gate, up := "gate_proj.weight", "up_proj.weight"
		if mut.swapGateUp {
			gate, up = up, gate
		}
		y := refSwiGLU(w.val[q+gate], w.val[q+up], w.val[q+"down_proj.weight"], xn)
		for i := range out {
			out[i] += g * y[i]
		}
	}
	if c.SharedSize > 0 {
		q := p + "shared_expert."
		y := refSwiGLU(w.val[q+"gate_proj.weight"], w.val[q+"up_proj.weight"], w.val[q+"down_proj.weight"], xn)
		gamma := 1 / (1 + math.Exp(-refLinear(w.val[p+"shared_expert_gate.weight"], nil, xn)[0]))
		for i := range out {
			out[i] += gamma * y[i]
		}
	}
	return out, rt
}

// refSwiGLU is down(silu(gate·x) ⊙ up·x).
func refSwiGLU(gate, up, down, x []float64) []float64 {
	g, u := refLinear(gate, nil, x), refLinear(up, nil, x)
	for i := range g {
		g[i] = g[i] / (1 + math.Exp(-g[i])) * u[i]
	}
	return refLinear(down, nil, g)
}

// refMoERun is what the reference computes for a whole sequence.
type refMoERun struct {
	logits [][]float64  // [T][V]
	routes [][]refRoute // [L][T]; nil for dense layers
}

// minMargin is the smallest gap between the k-th chosen and the best
// left-out probability over every sparse layer and position: fp32 and
// float64 may choose differently below 1e-4 (docs/spec/moe.md §8).
func (r refMoERun) minMargin() float64 {
	m := math.Inf(1)
	for _, layer := range r.routes {
		for _, rt := range layer {
			m = math.Min(m, rt.margin)
		}
	}
	return m
}

// refMoEForward runs OLMoE or Qwen3-MoE over tokens at positions 0…T−1.
func refMoEForward(c Config, w refTensors, tokens []int, mut refMoEMutation) refMoERun {
	h, T := c.HiddenSize, len(tokens)
	x := make([][]float64, T)
	for t, id := range tokens {
		x[t] = append([]float64(nil), w.val["model.embed_tokens.weight"][id*h:(id+1)*h]...)
	}
	var run refMoERun
	for l := range c.NumHiddenLayers {
		p := fmt.Sprintf("model.layers.%d.", l)
		att := refMoEAttention(c, w, p, x)
		var routes []refRoute
		for t := range T {
			x[t] = refAdd(x[t], att[t])
			xn := refRMSNorm(x[t], w.val[p+"post_attention_layernorm.weight"], c.RMSNormEps)
			var f []float64
			if c.MoE.Dense != nil && c.MoE.Dense[l] {
				f = refSwiGLU(w.val[p+"mlp.gate_proj.weight"], w.val[p+"mlp.up_proj.weight"], w.val[p+"mlp.down_proj.weight"], xn)
			} else {
				var rt refRoute
				f, rt = refMoEFFN(c.MoE, w, p+"mlp.", xn, mut, mut.forced(l, t), mut.off[l])
				routes = append(routes, rt)
			}
			x[t] = refAdd(x[t], f)
		}
		run.routes = append(run.routes, routes)
	}
	for t := range T {
		xf := refRMSNorm(x[t], w.val["model.norm.weight"], c.RMSNormEps)
		run.logits = append(run.logits, refLinear(w.val["lm_head.weight"], nil, xf))
	}
	return run
}

// refMoEAttention is causal softmax attention with QK-norm: OLMoE's over
// the full projected width, Qwen3-MoE's per head; then half-split RoPE.
func refMoEAttention(c Config, w refTensors, p string, x [][]float64) [][]float64 {
	T, d, H, KV := len(x), c.HeadDim, c.NumAttentionHeads, c.NumKeyValueHeads
	inv := refInvFreq(c)
	q, k, v := make([][]float64, T), make([][]float64, T), make([][]float64, T)
	for t := range T {
		xn := refRMSNorm(x[t], w.val[p+"input_layernorm.weight"], c.RMSNormEps)
		qp := refLinear(w.val[p+"self_attn.q_proj.weight"], nil, xn)
		kp := refLinear(w.val[p+"self_attn.k_proj.weight"], nil, xn)
		if c.ModelType == "olmoe" {
			qp = refRMSNorm(qp, w.val[p+"self_attn.q_norm.weight"], c.RMSNormEps)
			kp = refRMSNorm(kp, w.val[p+"self_attn.k_norm.weight"], c.RMSNormEps)
		} else {
			qp = refHeadNorm(qp, w.val[p+"self_attn.q_norm.weight"], c.RMSNormEps)
			kp = refHeadNorm(kp, w.val[p+"self_attn.k_norm.weight"], c.RMSNormEps)
		}
		q[t], k[t] = refRoPE(qp, t, d, inv), refRoPE(kp, t, d, inv)
		v[t] = refLinear(w.val[p+"self_attn.v_proj.weight"], nil, xn)
	}
	out := make([][]float64, T)
	for t := range T {
		o := make([]float64, H*d)
		for qh := range H {
			kvh := qh / (H / KV)
			s := make([]float64, t+1)
			for j := range t + 1 {
				for i := range d {
					s[j] += q[t][qh*d+i] * k[j][kvh*d+i]
				}
				s[j] /= math.Sqrt(float64(d))
			}
			s = refSoftmax(s)
			for j := range t + 1 {
				for i := range d {
					o[qh*d+i] += s[j] * v[j][kvh*d+i]
				}
			}
		}
		out[t] = refLinear(w.val[p+"self_attn.o_proj.weight"], nil, o)
	}
	return out
}

// ref35MoeForward is ref35Forward with the MoE FFN in every layer.
func ref35MoeForward(c Config, w refTensors, prefix string, tokens []int, mut refMoEMutation) refMoERun {
	h, T := c.HiddenSize, len(tokens)
	x := make([][]float64, T)
	for t, id := range tokens {
		x[t] = append([]float64(nil), w.val[prefix+"embed_tokens.weight"][id*h:(id+1)*h]...)
	}
	var run refMoERun
	for l, typ := range c.Qwen35.LayerTypes {
		p := fmt.Sprintf("%slayers.%d.", prefix, l)
		xn := make([][]float64, T)
		for t := range T {
			xn[t] = ref35Norm1p(x[t], w.val[p+"input_layernorm.weight"], c.RMSNormEps)
		}
		var mix [][]float64
		if typ == FullAttention {
			mix, _ = ref35Attention(c, w, p+"self_attn.", xn)
		} else {
			mix, _, _, _ = ref35DeltaNet(c, w, p+"linear_attn.", xn)
		}
		var routes []refRoute
		for t := range T {
			x[t] = refAdd(x[t], mix[t])
			f, rt := refMoEFFN(c.MoE, w, p+"mlp.", ref35Norm1p(x[t], w.val[p+"post_attention_layernorm.weight"], c.RMSNormEps), mut, mut.forced(l, t), mut.off[l])
			routes = append(routes, rt)
			x[t] = refAdd(x[t], f)
		}
		run.routes = append(run.routes, routes)
	}
	for t := range T {
		xf := ref35Norm1p(x[t], w.val[prefix+"norm.weight"], c.RMSNormEps)
		run.logits = append(run.logits, refLinear(w.val["lm_head.weight"], nil, xf))
	}
	return run
}

// fuseExperts rewrites per-expert tensors under each sparse layer as the
// fused pair transformers 5 saves (docs/spec/moe.md §4.1): gate_up_proj
// [E, 2I, h], gate rows first, and down_proj [E, h, I].
func fuseExperts(c Config, r refTensors, prefix string) refTensors {
	out := refTensors{val: map[string][]float64{}, shape: map[string][]int{}}
	for n, v := range r.val {
		out.val[n], out.shape[n] = v, r.shape[n]
	}
	E, I, h := c.MoE.Experts, c.MoE.ExpertSize, c.HiddenSize
	for l := range c.NumHiddenLayers {
		p := fmt.Sprintf("%slayers.%d.mlp.experts.", prefix, l)
		if _, ok := r.val[p+"0.gate_proj.weight"]; !ok {
			continue
		}
		var gu, down []float64
		for e := range E {
			q := fmt.Sprintf("%s%d.", p, e)
			gu = append(append(gu, r.val[q+"gate_proj.weight"]...), r.val[q+"up_proj.weight"]...)
			down = append(down, r.val[q+"down_proj.weight"]...)
			for _, n := range []string{"gate_proj.weight", "up_proj.weight", "down_proj.weight"} {
				delete(out.val, q+n)
				delete(out.shape, q+n)
			}
		}
		out.val[p+"gate_up_proj"], out.shape[p+"gate_up_proj"] = gu, []int{E, 2 * I, h}
		out.val[p+"down_proj"], out.shape[p+"down_proj"] = down, []int{E, h, I}
	}
	return out
}
