package engine

// Llama (Llama 2, Llama 3.x, TinyLlama, SmolLM2, the llama2.c models;
// docs/spec/llama.md), top to bottom: Qwen2's pre-norm decoder without any bias —
// grouped-query self-attention with RoPE (llama3 frequency scaling when the
// config asks), then a SwiGLU MLP, each added to the residual stream. The
// output head is untied unless tie_word_embeddings says otherwise.
//
// Notation as in qwen2.go: h hidden, H query heads, KV key/value heads, d
// head_dim, I intermediate, T tokens in this call.

import (
	"context"
	"fmt"
)

func init() {
	register("LlamaForCausalLM", "llama", llama{})
	registerGGUF("llama", "LlamaForCausalLM")
}

type llama struct{}

// configRules refuses attention_bias, a switch for biases no supported
// checkpoint has (docs/spec/llama.md §1).
func (llama) configRules(r *rawConfig, _ *Config) error {
	return refuseAttentionBias(r, "Llama")
}

// ggufMetaQK: convert_hf_to_gguf.py permutes Llama's Q and K rows into
// Meta's interleaved order; llamaLayer rotates them with ropeMeta.
func (llama) ggufMetaQK() {}

func (llama) forward(ctx context.Context, m *Model, tokens []int, pos0 int, pr *probes) ([]float32, error) {
	return m.decoderStack(ctx, tokens, pos0, pr, llamaLayer)
}

// llamaLayer is one decoder layer over the residual stream x [T, h].
func llamaLayer(m *Model, l, T, pos0 int, pr *probes) {
	lw, b := &m.w.layers[l], &m.buf
	H, KV := m.cfg.NumAttentionHeads, m.cfg.NumKeyValueHeads

	// Self-attention, no biases: x += o_proj(attention(rope(q), rope(k), v)).
	m.rmsNorm(b.xn, b.x, lw.attnNorm, T)                                                             // attn_norm [T, h]
	m.projectAll(b.xn, T, projection{&lw.wq, b.q}, projection{&lw.wk, b.k}, projection{&lw.wv, b.v}) // Qcur [T, H·d], Kcur, Vcur [T, KV·d]
	if m.w.metaQK {
		// GGUF llama files keep Meta's interleaved Q/K rows (docs/spec/llama.md §3):
		// rotate pairs (2i, 2i+1), which leaves the heads half-split.
		m.ropeMeta(b.q, H, T, pos0)
		m.ropeMeta(b.k, KV, T, pos0)
	} else {
		m.ropeHalf(b.q, H, T, pos0) // Hugging Face rows: pairs (i, i+d/2)
		m.ropeHalf(b.k, KV, T, pos0)
	}
	m.attention(l, T, pos0, pr)            // kqv_out [T, H·d]
	m.project(&lw.wo, b.attnOut, b.kqv, T) // attn_out [T, h]
	m.residual(b.attnOut, T)               // ffn_inp = x + attn_out

	// Feed-forward: x += down(silu(gate(n)) ⊙ up(n)), n = ffn_norm(x).
	m.rmsNorm(b.xn, b.x, lw.ffnNorm, T)
	m.swiGLU(lw, l, T, pos0, pr)
	m.residual(b.ffnOut, T)
}

// loadLayers views the Hugging Face tensors of docs/spec/llama.md §1: docs/spec/qwen2.md §2's
// names without biases.
func (llama) loadLayers(ld *loader, cfg Config) []layerWeights {
	h, I, d := cfg.HiddenSize, cfg.IntermediateSize, cfg.HeadDim
	qDim, kvDim := cfg.NumAttentionHeads*d, cfg.NumKeyValueHeads*d
	layers := make([]layerWeights, cfg.NumHiddenLayers)
	for i := range layers {
		p := fmt.Sprintf("model.layers.%d.", i)
		layers[i] = layerWeights{
			attnNorm: ld.vector(p+"input_layernorm.weight", h),
			wq:       ld.matrix(p+"self_attn.q_proj.weight", qDim, h),
			wk:       ld.matrix(p+"self_attn.k_proj.weight", kvDim, h),
			wv:       ld.matrix(p+"self_attn.v_proj.weight", kvDim, h),
			wo:       ld.matrix(p+"self_attn.o_proj.weight", h, qDim),
			ffnNorm:  ld.vector(p+"post_attention_layernorm.weight", h),
			wGate:    ld.matrix(p+"mlp.gate_proj.weight", I, h),
			wUp:      ld.matrix(p+"mlp.up_proj.weight", I, h),
			wDown:    ld.matrix(p+"mlp.down_proj.weight", h, I),
		}
	}
	return layers
}

// params: Qwen2's split without the q/k/v biases.
func (llama) params(cfg Config) paramSplit {
	h, I, L := int64(cfg.HiddenSize), int64(cfg.IntermediateSize), int64(cfg.NumHiddenLayers)
	qDim, kvDim := int64(cfg.NumAttentionHeads*cfg.HeadDim), int64(cfg.NumKeyValueHeads*cfg.HeadDim)
	return paramSplit{
		attention: L * (h*qDim + 2*h*kvDim + qDim*h),
		mlp:       L * 3 * h * I,
		norm:      L * 2 * h,
	}
}
