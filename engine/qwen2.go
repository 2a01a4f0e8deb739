package engine

// Qwen2 / Qwen2.5 (docs/spec/qwen2.md §3), top to bottom: a pre-norm decoder of L
// layers, each grouped-query self-attention with q/k/v biases and
// half-split RoPE, then a SwiGLU MLP, each added to the residual stream.
//
// Notation: h hidden, H query heads, KV key/value heads, d head_dim,
// I intermediate, V vocab, T tokens in this call. Intermediates are named as
// in llama.cpp's qwen2 graph.

import (
	"context"
	"fmt"
)

func init() {
	register("Qwen2ForCausalLM", "qwen2", qwen2{})
	registerGGUF("qwen2", "Qwen2ForCausalLM")
}

type qwen2 struct{}

func (qwen2) forward(ctx context.Context, m *Model, tokens []int, pos0 int, pr *probes) ([]float32, error) {
	return m.decoderStack(ctx, tokens, pos0, pr, qwen2Layer)
}

// qwen2Layer is one decoder layer over the residual stream x [T, h].
func qwen2Layer(m *Model, l, T, pos0 int, pr *probes) {
	lw, b := &m.w.layers[l], &m.buf
	H, KV := m.cfg.NumAttentionHeads, m.cfg.NumKeyValueHeads

	// Self-attention: x += o_proj(attention(rope(q), rope(k), v)), all of
	// attn_norm(x); the projections carry biases, o_proj does not.
	m.rmsNorm(b.xn, b.x, lw.attnNorm, T)                                                             // attn_norm [T, h]
	m.projectAll(b.xn, T, projection{&lw.wq, b.q}, projection{&lw.wk, b.k}, projection{&lw.wv, b.v}) // Qcur [T, H·d], Kcur, Vcur [T, KV·d]
	addBias(b.q, lw.bq, T)                                                                           // Qwen2's q, k and v carry biases
	addBias(b.k, lw.bk, T)
	addBias(b.v, lw.bv, T)
	m.ropeHalf(b.q, H, T, pos0) // rotate pairs (i, i+d/2) by position
	m.ropeHalf(b.k, KV, T, pos0)
	m.attention(l, T, pos0, pr)            // kqv_out [T, H·d]: GQA over the cache
	m.project(&lw.wo, b.attnOut, b.kqv, T) // attn_out [T, h]
	m.residual(b.attnOut, T)               // ffn_inp = x + attn_out

	// Feed-forward: x += down(silu(gate(n)) ⊙ up(n)), n = ffn_norm(x).
	m.rmsNorm(b.xn, b.x, lw.ffnNorm, T) // ffn_norm [T, h]
	m.swiGLU(lw, l, T, pos0, pr)        // ffn_out [T, h]
	m.residual(b.ffnOut, T)             // x = ffn_inp + ffn_out
}

// loadLayers views the Hugging Face tensors of docs/spec/qwen2.md §2.
func (qwen2) loadLayers(ld *loader, cfg Config) []layerWeights {
	h, I, d := cfg.HiddenSize, cfg.IntermediateSize, cfg.HeadDim
	qDim, kvDim := cfg.NumAttentionHeads*d, cfg.NumKeyValueHeads*d
	layers := make([]layerWeights, cfg.NumHiddenLayers)
	for i := range layers {
		p := fmt.Sprintf("model.layers.%d.", i)
		layers[i] = layerWeights{
			attnNorm: ld.vector(p+"input_layernorm.weight", h),
			wq:       ld.matrix(p+"self_attn.q_proj.weight", qDim, h),
			bq:       ld.vector(p+"self_attn.q_proj.bias", qDim),
			wk:       ld.matrix(p+"self_attn.k_proj.weight", kvDim, h),
			bk:       ld.vector(p+"self_attn.k_proj.bias", kvDim),
			wv:       ld.matrix(p+"self_attn.v_proj.weight", kvDim, h),
			bv:       ld.vector(p+"self_attn.v_proj.bias", kvDim),
			wo:       ld.matrix(p+"self_attn.o_proj.weight", h, qDim),
			ffnNorm:  ld.vector(p+"post_attention_layernorm.weight", h),
			wGate:    ld.matrix(p+"mlp.gate_proj.weight", I, h),
			wUp:      ld.matrix(p+"mlp.up_proj.weight", I, h),
			wDown:    ld.matrix(p+"mlp.down_proj.weight", h, I),
		}
	}
	return layers
}

// params counts docs/spec/qwen2.md §5: attention with q/k/v biases, a three-matrix
// MLP, two norms a layer.
func (qwen2) params(cfg Config) paramSplit {
	h, I, L := int64(cfg.HiddenSize), int64(cfg.IntermediateSize), int64(cfg.NumHiddenLayers)
	qDim, kvDim := int64(cfg.NumAttentionHeads*cfg.HeadDim), int64(cfg.NumKeyValueHeads*cfg.HeadDim)
	return paramSplit{
		attention: L * (h*qDim + qDim + 2*(h*kvDim+kvDim) + qDim*h),
		mlp:       L * 3 * h * I,
		norm:      L * 2 * h,
	}
}
