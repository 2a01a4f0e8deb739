package engine

// OLMoE (OLMoE-1B-7B; docs/spec/moe.md §2), top to bottom: a Llama-style
// pre-norm decoder (multi-head attention, no biases, half-split RoPE,
// untied output head) with two differences, each visible where it happens
// in olmoeLayer:
//   - QK-norm over the full projected width, before the split into heads:
//     q = RMSNorm(q_proj(x)) with weight [H·d] and statistics over all H·d
//     values (not per head, as Qwen3 does); k likewise over KV·d;
//   - the FFN is the sparse MoE block of moe.go: softmax router, top-k
//     experts whose weights are not renormalised (norm_topk_prob false).
//
// Notation as in qwen2.go: h hidden, H query heads, KV key/value heads, d
// head_dim (h/H), T tokens in this call; E experts, I expert width.

import (
	"context"
	"encoding/json"
	"fmt"
)

func init() {
	register("OlmoeForCausalLM", "olmoe", olmoe{})
	registerGGUF("olmoe", "OlmoeForCausalLM")
}

type olmoe struct{}

func (olmoe) forward(ctx context.Context, m *Model, tokens []int, pos0 int, pr *probes) ([]float32, error) {
	return m.decoderStack(ctx, tokens, pos0, pr, olmoeLayer)
}

// olmoeLayer is one decoder layer over the residual stream x [T, h].
func olmoeLayer(m *Model, l, T, pos0 int, pr *probes) {
	lw, b := &m.w.layers[l], &m.buf
	H, KV := m.cfg.NumAttentionHeads, m.cfg.NumKeyValueHeads

	// Self-attention: x += o_proj(attention(rope(q_norm(q)), rope(k_norm(k)), v)).
	m.rmsNorm(b.xn, b.x, lw.attnNorm, T)                                                             // attn_norm [T, h]
	m.projectAll(b.xn, T, projection{&lw.wq, b.q}, projection{&lw.wk, b.k}, projection{&lw.wv, b.v}) // Qcur [T, H·d], Kcur, Vcur [T, KV·d]
	m.rmsNorm(b.q, b.q, lw.qNorm, T)                                                                 // q_norm over all H·d values of a row, then the heads
	m.rmsNorm(b.k, b.k, lw.kNorm, T)                                                                 // k_norm over all KV·d
	m.ropeHalf(b.q, H, T, pos0)                                                                      // rotate pairs (i, i+d/2) by position
	m.ropeHalf(b.k, KV, T, pos0)
	m.attention(l, T, pos0, pr)            // kqv_out [T, H·d]
	m.project(&lw.wo, b.attnOut, b.kqv, T) // attn_out [T, h]
	m.residual(b.attnOut, T)               // ffn_inp = x + attn_out

	// Sparse FFN: x += Σ_chosen p_e·expert_e(n), n = ffn_norm(x).
	m.rmsNorm(b.xn, b.x, lw.ffnNorm, T) // ffn_norm [T, h]
	m.moe(lw.moe, l, T, pos0, pr)       // ffn_out [T, h]
	m.residual(b.ffnOut, T)             // x = ffn_inp + ffn_out
}

// olmoeKeys are the keys OlmoeConfig adds to Qwen2Config's.
type olmoeKeys struct {
	NumExperts       *int            `json:"num_experts"`
	NumExpertsPerTok *int            `json:"num_experts_per_tok"`
	NormTopKProb     *bool           `json:"norm_topk_prob"`
	ClipQKV          json.RawMessage `json:"clip_qkv"`
}

// configRules reads OlmoeConfig's experts (its intermediate_size is the
// width of one expert), its eps default 1e-5, and refuses clip_qkv (not
// implemented; null in every released config) and attention biases.
func (olmoe) configRules(r *rawConfig, c *Config) error {
	var k olmoeKeys
	if err := json.Unmarshal(r.data, &k); err != nil {
		return fmt.Errorf("%w: %v", ErrBadFile, err)
	}
	if len(k.ClipQKV) > 0 && string(k.ClipQKV) != "null" {
		return fmt.Errorf("%w: clip_qkv %s (only null)", ErrUnsupported, k.ClipQKV)
	}
	if r.RMSNormEps == nil {
		c.RMSNormEps = 1e-5
	}
	c.MoE = &MoEConfig{Experts: intOr(k.NumExperts, 64), TopK: intOr(k.NumExpertsPerTok, 8),
		ExpertSize: c.IntermediateSize, NormTopK: k.NormTopKProb != nil && *k.NormTopKProb}
	return refuseAttentionBias(r, "OLMoE")
}

// ggufConfig reads olmoe.expert_count and expert_used_count; llama.cpp's
// olmoe never renormalises, and its expert width is feed_forward_length.
func (olmoe) ggufConfig(r *ggufReader, c *Config) error {
	c.MoE = &MoEConfig{Experts: r.int("expert_count", 1, maxExperts, -1), TopK: r.int("expert_used_count", 1, maxExperts, -1),
		ExpertSize: c.IntermediateSize}
	return r.expertGating(false)
}

// loadLayers views OLMoE's tensors (docs/spec/moe.md §4.1): Llama's
// attention with full-width q_norm [H·d] and k_norm [KV·d], and an MoE
// block in every layer.
func (olmoe) loadLayers(ld *loader, cfg Config) []layerWeights {
	h, d := cfg.HiddenSize, cfg.HeadDim
	qDim, kvDim := cfg.NumAttentionHeads*d, cfg.NumKeyValueHeads*d
	layers := make([]layerWeights, cfg.NumHiddenLayers)
	for i := range layers {
		p := fmt.Sprintf("model.layers.%d.", i)
		layers[i] = layerWeights{
			attnNorm: ld.vector(p+"input_layernorm.weight", h),
			wq:       ld.matrix(p+"self_attn.q_proj.weight", qDim, h),
			wk:       ld.matrix(p+"self_attn.k_proj.weight", kvDim, h),
			wv:       ld.matrix(p+"self_attn.v_proj.weight", kvDim, h),
			qNorm:    ld.vector(p+"self_attn.q_norm.weight", qDim),
			kNorm:    ld.vector(p+"self_attn.k_norm.weight", kvDim),
			wo:       ld.matrix(p+"self_attn.o_proj.weight", h, qDim),
			ffnNorm:  ld.vector(p+"post_attention_layernorm.weight", h),
			moe:      loadMoE(ld, cfg, p+"mlp."),
		}
	}
	return layers
}

// params: attention without biases, full-width QK-norms, and per layer
// the router [E, h] and E experts of 3·h·I.
func (olmoe) params(cfg Config) paramSplit {
	h, L := int64(cfg.HiddenSize), int64(cfg.NumHiddenLayers)
	qDim, kvDim := int64(cfg.NumAttentionHeads*cfg.HeadDim), int64(cfg.NumKeyValueHeads*cfg.HeadDim)
	return paramSplit{
		attention: L * (h*qDim + 2*h*kvDim + qDim*h),
		mlp:       cfg.mlpParams(cfg.MoE.Experts),
		norm:      L * (2*h + qDim + kvDim),
	}
}
