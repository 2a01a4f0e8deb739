package engine

// Qwen3 dense (docs/spec/qwen3.md §1), top to bottom: Qwen2's pre-norm decoder with
// three differences, each visible where it happens in qwen3Layer:
//   - no q/k/v biases (attention_bias false);
//   - head_dim is its own config field, so H·d need not equal h (0.6B:
//     q_proj 1024 → 2048, o_proj 2048 → 1024);
//   - QK-norm: every query and key head goes through an RMSNorm over its
//     d values (weights q_norm, k_norm [d], shared by the heads of a
//     layer) after the projections and before RoPE.
//
// Notation as in qwen2.go: h hidden, H query heads, KV key/value heads,
// d head_dim, I intermediate, T tokens in this call.

import (
	"context"
	"fmt"
)

func init() {
	register("Qwen3ForCausalLM", "qwen3", qwen3{})
	registerGGUF("qwen3", "Qwen3ForCausalLM")
}

type qwen3 struct{}

// configRules: Qwen3Config's head_dim defaults to 128 whatever h/H is
// (docs/spec/qwen3.md §1 item 2), and qwen3.go loads no attention biases (every published
// Qwen3 has none).
func (qwen3) configRules(r *rawConfig, c *Config) error {
	c.HeadDim = 128
	return refuseAttentionBias(r, "Qwen3")
}

func (qwen3) forward(ctx context.Context, m *Model, tokens []int, pos0 int, pr *probes) ([]float32, error) {
	return m.decoderStack(ctx, tokens, pos0, pr, qwen3Layer)
}

// qwen3Layer is one decoder layer over the residual stream x [T, h].
func qwen3Layer(m *Model, l, T, pos0 int, pr *probes) {
	lw, b := &m.w.layers[l], &m.buf
	qwen3Attention(m, l, T, pos0, pr)
	m.residual(b.attnOut, T) // ffn_inp = x + attn_out

	// Feed-forward, as Qwen2: x += down(silu(gate(n)) ⊙ up(n)), n = ffn_norm(x).
	m.rmsNorm(b.xn, b.x, lw.ffnNorm, T) // ffn_norm [T, h]
	m.swiGLU(lw, l, T, pos0, pr)        // ffn_out [T, h]
	m.residual(b.ffnOut, T)             // x = ffn_inp + ffn_out
}

// qwen3Attention is Qwen3's self-attention of x into attn_out [T, h]:
// o_proj(attention(rope(q_norm(q)), rope(k_norm(k)), v)), all of
// attn_norm(x); no projection carries a bias. Qwen3-MoE's layers share it.
func qwen3Attention(m *Model, l, T, pos0 int, pr *probes) {
	lw, b := &m.w.layers[l], &m.buf
	H, KV := m.cfg.NumAttentionHeads, m.cfg.NumKeyValueHeads
	m.rmsNorm(b.xn, b.x, lw.attnNorm, T)                                                             // attn_norm [T, h]
	m.projectAll(b.xn, T, projection{&lw.wq, b.q}, projection{&lw.wk, b.k}, projection{&lw.wv, b.v}) // Qcur [T, H·d], Kcur, Vcur [T, KV·d]
	m.headNorm(b.q, lw.qNorm, H, T)                                                                  // Qcur_normed: RMSNorm of each query head over d
	m.headNorm(b.k, lw.kNorm, KV, T)                                                                 // Kcur_normed: of each key head; values are not normed
	m.ropeHalf(b.q, H, T, pos0)                                                                      // rotate pairs (i, i+d/2) by position
	m.ropeHalf(b.k, KV, T, pos0)
	m.attention(l, T, pos0, pr)            // kqv_out [T, H·d]: GQA over the cache
	m.project(&lw.wo, b.attnOut, b.kqv, T) // attn_out [T, h]: o_proj maps H·d → h
}

// loadLayers views the Hugging Face tensors of docs/spec/qwen3.md §2: Qwen2's
// without biases, plus q_norm and k_norm.
func (qwen3) loadLayers(ld *loader, cfg Config) []layerWeights {
	h, I := cfg.HiddenSize, cfg.IntermediateSize
	layers := make([]layerWeights, cfg.NumHiddenLayers)
	for i := range layers {
		p := fmt.Sprintf("model.layers.%d.", i)
		layers[i] = loadQwen3Attention(ld, cfg, p)
		layers[i].ffnNorm = ld.vector(p+"post_attention_layernorm.weight", h)
		layers[i].wGate = ld.matrix(p+"mlp.gate_proj.weight", I, h)
		layers[i].wUp = ld.matrix(p+"mlp.up_proj.weight", I, h)
		layers[i].wDown = ld.matrix(p+"mlp.down_proj.weight", h, I)
	}
	return layers
}

// loadQwen3Attention views one layer's input norm and attention tensors
// under p ("model.layers.i.").
func loadQwen3Attention(ld *loader, cfg Config, p string) layerWeights {
	h, d := cfg.HiddenSize, cfg.HeadDim
	qDim, kvDim := cfg.NumAttentionHeads*d, cfg.NumKeyValueHeads*d
	return layerWeights{
		attnNorm: ld.vector(p+"input_layernorm.weight", h),
		wq:       ld.matrix(p+"self_attn.q_proj.weight", qDim, h),
		wk:       ld.matrix(p+"self_attn.k_proj.weight", kvDim, h),
		wv:       ld.matrix(p+"self_attn.v_proj.weight", kvDim, h),
		qNorm:    ld.vector(p+"self_attn.q_norm.weight", d),
		kNorm:    ld.vector(p+"self_attn.k_norm.weight", d),
		wo:       ld.matrix(p+"self_attn.o_proj.weight", h, qDim),
	}
}

// params counts docs/spec/qwen3.md §3: h·H·d + 2·h·KV·d + H·d·h of attention, a
// three-matrix MLP, and per layer two norms of h plus q_norm, k_norm of d.
func (qwen3) params(cfg Config) paramSplit {
	h, I, L, d := int64(cfg.HiddenSize), int64(cfg.IntermediateSize), int64(cfg.NumHiddenLayers), int64(cfg.HeadDim)
	qDim, kvDim := int64(cfg.NumAttentionHeads)*d, int64(cfg.NumKeyValueHeads)*d
	return paramSplit{
		attention: L * (h*qDim + 2*h*kvDim + qDim*h),
		mlp:       L * 3 * h * I,
		norm:      L * (2*h + 2*d),
	}
}
