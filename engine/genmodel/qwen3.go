package genmodel

import (
	"encoding/json"
	"strconv"

	"loupe/assets"
)

// Qwen3 dense shapes (docs/spec/qwen3.md §3): head_dim is its own field (H·d ≠ h),
// no biases, q_norm/k_norm per layer, the Qwen3 tokenizer (four more added
// tokens, <think> among them) and the thinking chat template.
func init() {
	// tiny-qwen3: real vocabulary, head_dim 32 so that H·d = 128 ≠ h = 64.
	shapes["tiny-qwen3"] = Shape{Family: "qwen3", HiddenSize: 64, IntermediateSize: 128, NumHiddenLayers: 2,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, ExplicitHeadDim: 32, VocabSize: 151936,
		MaxPositionEmbeddings: 4096, MaxWindowLayers: 2, TieWordEmbeddings: true}
	shapes["qwen3-0.6b"] = Shape{Family: "qwen3", HiddenSize: 1024, IntermediateSize: 3072, NumHiddenLayers: 28,
		NumAttentionHeads: 16, NumKeyValueHeads: 8, ExplicitHeadDim: 128, VocabSize: 151936,
		MaxPositionEmbeddings: 40960, MaxWindowLayers: 28, TieWordEmbeddings: true}
	shapes["qwen3-1.7b"] = Shape{Family: "qwen3", HiddenSize: 2048, IntermediateSize: 6144, NumHiddenLayers: 28,
		NumAttentionHeads: 16, NumKeyValueHeads: 8, ExplicitHeadDim: 128, VocabSize: 151936,
		MaxPositionEmbeddings: 40960, MaxWindowLayers: 28, TieWordEmbeddings: true}
}

// qwen3Tensors lists docs/spec/qwen3.md §2 for s: 2 + 11·L tensors, plus lm_head
// when untied.
func (s Shape) qwen3Tensors() []TensorSpec {
	h, d, I, V := s.HiddenSize, s.HeadDim(), s.IntermediateSize, s.VocabSize
	qd, kvd := s.NumAttentionHeads*d, s.NumKeyValueHeads*d
	out := []TensorSpec{{"model.embed_tokens.weight", []int{V, h}, embedding(h)}}
	for i := range s.NumHiddenLayers {
		p := "model.layers." + strconv.Itoa(i) + "."
		out = append(out,
			TensorSpec{p + "input_layernorm.weight", []int{h}, norm()},
			TensorSpec{p + "self_attn.q_proj.weight", []int{qd, h}, matrix(h)},
			TensorSpec{p + "self_attn.k_proj.weight", []int{kvd, h}, matrix(h)},
			TensorSpec{p + "self_attn.v_proj.weight", []int{kvd, h}, matrix(h)},
			TensorSpec{p + "self_attn.q_norm.weight", []int{d}, norm()},
			TensorSpec{p + "self_attn.k_norm.weight", []int{d}, norm()},
			TensorSpec{p + "self_attn.o_proj.weight", []int{h, qd}, matrix(qd)},
			TensorSpec{p + "post_attention_layernorm.weight", []int{h}, norm()},
			TensorSpec{p + "mlp.gate_proj.weight", []int{I, h}, matrix(h)},
			TensorSpec{p + "mlp.up_proj.weight", []int{I, h}, matrix(h)},
			TensorSpec{p + "mlp.down_proj.weight", []int{h, I}, matrix(I)},
		)
	}
	out = append(out, TensorSpec{"model.norm.weight", []int{h}, norm()})
	if !s.TieWordEmbeddings {
		out = append(out, TensorSpec{"lm_head.weight", []int{V, h}, embedding(h)})
	}
	return out
}

// Qwen3's special ids: bos <|endoftext|>, eos <|im_end|> (docs/spec/qwen3.md §3).
const (
	qwen3BOS = 151643
	qwen3EOS = 151645
)

// qwen3ConfigFields are Qwen3's config.json fields (docs/spec/qwen3.md §3).
func qwen3ConfigFields(s Shape, torch string) map[string]any {
	return map[string]any{
		"architectures": []string{"Qwen3ForCausalLM"}, "attention_bias": false, "attention_dropout": json.Number("0.0"),
		"bos_token_id": qwen3BOS, "eos_token_id": qwen3EOS, "head_dim": s.HeadDim(), "hidden_act": "silu",
		"hidden_size": s.HiddenSize, "initializer_range": json.Number("0.02"), "intermediate_size": s.IntermediateSize,
		"max_position_embeddings": s.MaxPositionEmbeddings, "max_window_layers": s.MaxWindowLayers,
		"model_type": "qwen3", "num_attention_heads": s.NumAttentionHeads, "num_hidden_layers": s.NumHiddenLayers,
		"num_key_value_heads": s.NumKeyValueHeads, "rms_norm_eps": json.Number("1e-06"), "rope_scaling": nil,
		"rope_theta": 1000000, "sliding_window": nil, "tie_word_embeddings": s.TieWordEmbeddings,
		"torch_dtype": torch, "transformers_version": "4.51.0", "use_cache": true,
		"use_sliding_window": false, "vocab_size": s.VocabSize,
	}
}

// qwen3GenerationConfig is the hybrid Qwen3 models' generation_config.json
// (docs/spec/qwen3.md §6): sampling on with the thinking-mode values, two stop ids.
const qwen3GenerationConfig = `{
  "bos_token_id": 151643,
  "do_sample": true,
  "eos_token_id": [
    151645,
    151643
  ],
  "pad_token_id": 151643,
  "temperature": 0.6,
  "top_k": 20,
  "top_p": 0.95,
  "transformers_version": "4.51.0"
}
`

// qwen3Files are the folder's text files besides config.json.
func qwen3Files() []namedFile {
	return []namedFile{
		{"generation_config.json", []byte(qwen3GenerationConfig)},
		{"tokenizer.json", assets.Qwen3Tokenizer()},
		{"tokenizer_config.json", assets.Qwen3TokenizerConfig},
	}
}
