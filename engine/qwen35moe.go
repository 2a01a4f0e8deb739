package engine

// Qwen3.5-MoE (Qwen3.5-35B-A3B; docs/spec/moe.md §2), top to bottom:
// Qwen3.5's hybrid stack (qwen35.go: Gated DeltaNet and gated attention
// layers, zero-centred 1 + w norms, partial RoPE) whose every FFN is the
// MoE block of moe.go with a shared expert: the routed experts' weights
// always renormalised, plus σ(w_sg·x)·shared(x).
//
// Notation as in qwen35.go; E experts, k chosen, I expert width, I_s the
// shared expert's width.

import (
	"context"
	"encoding/json"
	"fmt"
)

func init() {
	register("Qwen3_5MoeForConditionalGeneration", "qwen3_5_moe", qwen35moe{})
	register("Qwen3_5MoeForCausalLM", "qwen3_5_moe_text", qwen35moe{})
	registerGGUF("qwen35moe", "Qwen3_5MoeForCausalLM")
}

// ggufPartialRope: as Qwen3.5.
func (qwen35moe) ggufPartialRope() {}

// ggufConfig reads Qwen3.5's keys and the experts: expert_count,
// expert_used_count, expert_feed_forward_length and
// expert_shared_feed_forward_length; llama.cpp's qwen35moe renormalises.
func (qwen35moe) ggufConfig(r *ggufReader, c *Config) error {
	if err := (qwen35{}).ggufConfig(r, c); err != nil {
		return err
	}
	c.MoE = &MoEConfig{Experts: r.int("expert_count", 1, maxExperts, -1), TopK: r.int("expert_used_count", 1, maxExperts, -1),
		ExpertSize: r.int("expert_feed_forward_length", 1, 1<<20, -1), SharedSize: r.int("expert_shared_feed_forward_length", 0, 1<<20, 0),
		NormTopK: true}
	if c.IntermediateSize == 0 {
		c.IntermediateSize = c.MoE.ExpertSize
	}
	return r.expertGating(true)
}

type qwen35moe struct{}

func (qwen35moe) forward(ctx context.Context, m *Model, tokens []int, pos0 int, pr *probes) ([]float32, error) {
	return hybridForward(ctx, m, tokens, pos0, pr, qwen35moeLayer)
}

// qwen35moeLayer is one decoder layer over the residual stream x [T, h].
func qwen35moeLayer(m *Model, l, T, pos0 int, pr *probes) {
	lw, b := &m.w.layers[l], &m.buf
	m.rmsNorm(b.xn, b.x, lw.attnNorm, T) // attn_norm [T, h] (1 + w)
	if lw.linear != nil {
		qwen35DeltaNet(m, l, T, pos0, pr) // attn_out [T, h]
	} else {
		qwen35Attention(m, l, T, pos0, pr)
	}
	m.residual(b.attnOut, T) // ffn_inp = x + attn_out

	m.rmsNorm(b.xn, b.x, lw.ffnNorm, T) // ffn_norm [T, h] (1 + w)
	m.moe(lw.moe, l, T, pos0, pr)       // ffn_out = Σ_chosen g_e·expert_e(n) + σ(w_sg·n)·shared(n)
	m.residual(b.ffnOut, T)             // x = ffn_inp + ffn_out
}

// qwen35moeKeys are the keys Qwen3_5MoeTextConfig adds to Qwen3.5's; it
// has no norm_topk_prob (the weights are always renormalised).
type qwen35moeKeys struct {
	NumExperts          *int `json:"num_experts"`
	NumExpertsPerTok    *int `json:"num_experts_per_tok"`
	MoeIntermediateSize *int `json:"moe_intermediate_size"`
	SharedIntermediate  *int `json:"shared_expert_intermediate_size"`
	IntermediateSize    *int `json:"intermediate_size"`
}

// parseConfig reads Qwen3.5's layout (qwen35.parseConfig) and the experts
// from text_config (35B-A3B's values by default). intermediate_size, absent
// from these files, becomes the expert width the buffers are sized by.
func (qwen35moe) parseConfig(data []byte) (Config, error) {
	c, err := qwen35{}.parseConfig(data)
	if err != nil {
		return Config{}, err
	}
	var top struct {
		TextConfig json.RawMessage `json:"text_config"`
	}
	text := data
	if json.Unmarshal(data, &top) == nil && len(top.TextConfig) > 0 && string(top.TextConfig) != "null" {
		text = top.TextConfig
	}
	var k qwen35moeKeys
	if err := json.Unmarshal(text, &k); err != nil {
		return Config{}, fmt.Errorf("%w: text_config: %v", ErrBadFile, err)
	}
	c.MoE = &MoEConfig{Experts: intOr(k.NumExperts, 256), TopK: intOr(k.NumExpertsPerTok, 8),
		ExpertSize: intOr(k.MoeIntermediateSize, 512), SharedSize: intOr(k.SharedIntermediate, 512), NormTopK: true}
	if k.IntermediateSize == nil {
		c.IntermediateSize = c.MoE.ExpertSize
	}
	return c, nil
}

// loadLayers views each layer's norms and mixer as Qwen3.5 does, and its
// MoE block with the shared expert.
func (qwen35moe) loadLayers(ld *loader, cfg Config) []layerWeights {
	layers := make([]layerWeights, cfg.NumHiddenLayers)
	for i := range layers {
		loadHybridMixer(ld, cfg, i, &layers[i])
		layers[i].moe = loadMoE(ld, cfg, fmt.Sprintf("%slayers.%d.mlp.", ld.prefix, i))
	}
	ld.notUsed = qwen35Skipped(ld)
	return layers
}

// loadFinalNorm: zero-centred, as Qwen3.5's.
func (qwen35moe) loadFinalNorm(ld *loader, cfg Config) []float32 {
	return qwen35{}.loadFinalNorm(ld, cfg)
}

// params: Qwen3.5's mixers and norms, an MoE block in every layer.
func (qwen35moe) params(cfg Config) paramSplit {
	p := qwen35{}.params(cfg)
	p.mlp = cfg.mlpParams(cfg.MoE.Experts)
	return p
}
