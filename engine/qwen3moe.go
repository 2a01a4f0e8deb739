package engine

// Qwen3-MoE (Qwen3-30B-A3B; docs/spec/moe.md §2), top to bottom: Qwen3's
// attention exactly (no biases, explicit head_dim, per-head QK-norm before
// RoPE; qwen3Attention), then in each sparse layer the MoE block of moe.go
// (softmax router, top-k, weights renormalised when norm_topk_prob says
// so) instead of the dense SwiGLU, which the layers listed in
// mlp_only_layers, or off the decoder_sparse_step, keep.
//
// Notation as in qwen3.go; E experts, k chosen, I expert width
// (moe_intermediate_size).

import (
	"context"
	"encoding/json"
	"fmt"
)

func init() {
	register("Qwen3MoeForCausalLM", "qwen3_moe", qwen3moe{})
	registerGGUF("qwen3moe", "Qwen3MoeForCausalLM")
}

type qwen3moe struct{}

func (qwen3moe) forward(ctx context.Context, m *Model, tokens []int, pos0 int, pr *probes) ([]float32, error) {
	return m.decoderStack(ctx, tokens, pos0, pr, qwen3moeLayer)
}

// qwen3moeLayer is one decoder layer over the residual stream x [T, h].
func qwen3moeLayer(m *Model, l, T, pos0 int, pr *probes) {
	lw, b := &m.w.layers[l], &m.buf
	qwen3Attention(m, l, T, pos0, pr) // attn_out [T, h], as Qwen3
	m.residual(b.attnOut, T)          // ffn_inp = x + attn_out

	m.rmsNorm(b.xn, b.x, lw.ffnNorm, T) // ffn_norm [T, h]
	if lw.moe != nil {
		m.moe(lw.moe, l, T, pos0, pr) // ffn_out = Σ_chosen g_e·expert_e(n)
	} else {
		m.swiGLU(lw, l, T, pos0, pr) // a dense layer (mlp_only_layers)
	}
	m.residual(b.ffnOut, T) // x = ffn_inp + ffn_out
}

// qwen3moeKeys are the keys Qwen3MoeConfig adds to Qwen3Config's.
type qwen3moeKeys struct {
	NumExperts          *int  `json:"num_experts"`
	NumExpertsPerTok    *int  `json:"num_experts_per_tok"`
	MoeIntermediateSize *int  `json:"moe_intermediate_size"`
	NormTopKProb        *bool `json:"norm_topk_prob"`
	DecoderSparseStep   *int  `json:"decoder_sparse_step"`
	MLPOnlyLayers       []int `json:"mlp_only_layers"`
}

// configRules: Qwen3's rules (head_dim 128, no attention biases) and
// Qwen3MoeConfig's keys with its class defaults — norm_topk_prob false
// when absent, though every released config sets it true.
func (qwen3moe) configRules(r *rawConfig, c *Config) error {
	var k qwen3moeKeys
	if err := json.Unmarshal(r.data, &k); err != nil {
		return fmt.Errorf("%w: %v", ErrBadFile, err)
	}
	c.MoE = &MoEConfig{Experts: intOr(k.NumExperts, 128), TopK: intOr(k.NumExpertsPerTok, 8),
		ExpertSize: intOr(k.MoeIntermediateSize, 768), NormTopK: k.NormTopKProb != nil && *k.NormTopKProb}
	L, step := c.NumHiddenLayers, intOr(k.DecoderSparseStep, 1)
	if step < 1 {
		return fmt.Errorf("%w: decoder_sparse_step = %d (want ≥ 1)", ErrBadFile, step)
	}
	if L > 0 && L <= maxDim {
		c.MoE.Dense = make([]bool, L)
		for i := range L {
			c.MoE.Dense[i] = (i+1)%step != 0
		}
		for _, i := range k.MLPOnlyLayers {
			if i < 0 || i >= L {
				return fmt.Errorf("%w: mlp_only_layers has layer %d (the model has %d)", ErrBadFile, i, L)
			}
			c.MoE.Dense[i] = true
		}
	}
	return qwen3{}.configRules(r, c)
}

// ggufConfig reads qwen3moe.expert_count, expert_used_count and
// expert_feed_forward_length (llama.cpp's fallback: feed_forward_length/k);
// llama.cpp's qwen3moe renormalises and makes every layer sparse.
func (qwen3moe) ggufConfig(r *ggufReader, c *Config) error {
	E, k := r.int("expert_count", 1, maxExperts, -1), r.int("expert_used_count", 1, maxExperts, -1)
	if r.err != nil {
		return r.err
	}
	I := r.int("expert_feed_forward_length", 1, 1<<20, int64(c.IntermediateSize/max(1, k)))
	c.MoE = &MoEConfig{Experts: E, TopK: k, ExpertSize: I, NormTopK: true}
	return r.expertGating(true)
}

// loadLayers views Qwen3's attention tensors and, per layer, the MoE
// block or (mlp_only_layers) the dense MLP.
func (qwen3moe) loadLayers(ld *loader, cfg Config) []layerWeights {
	h, I := cfg.HiddenSize, cfg.IntermediateSize
	layers := make([]layerWeights, cfg.NumHiddenLayers)
	for i := range layers {
		p := fmt.Sprintf("model.layers.%d.", i)
		lw := &layers[i]
		*lw = loadQwen3Attention(ld, cfg, p)
		lw.ffnNorm = ld.vector(p+"post_attention_layernorm.weight", h)
		if cfg.MoE.sparse(i) {
			lw.moe = loadMoE(ld, cfg, p+"mlp.")
			continue
		}
		lw.wGate = ld.matrix(p+"mlp.gate_proj.weight", I, h)
		lw.wUp = ld.matrix(p+"mlp.up_proj.weight", I, h)
		lw.wDown = ld.matrix(p+"mlp.down_proj.weight", h, I)
	}
	return layers
}

// params: Qwen3's attention and norms; the sparse layers' router and
// experts, the dense layers' three matrices.
func (qwen3moe) params(cfg Config) paramSplit {
	p := qwen3{}.params(cfg)
	p.mlp = cfg.mlpParams(cfg.MoE.Experts)
	return p
}
