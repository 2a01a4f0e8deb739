package genmodel

import (
	"encoding/json"
	"fmt"
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

// qwen3Config mirrors the field order of Qwen3's config.json.
type qwen3Config struct {
	Architectures         []string    `json:"architectures"`
	AttentionBias         bool        `json:"attention_bias"`
	AttentionDropout      json.Number `json:"attention_dropout"`
	BOSTokenID            int         `json:"bos_token_id"`
	EOSTokenID            int         `json:"eos_token_id"`
	HeadDim               int         `json:"head_dim"`
	HiddenAct             string      `json:"hidden_act"`
	HiddenSize            int         `json:"hidden_size"`
	InitializerRange      json.Number `json:"initializer_range"`
	IntermediateSize      int         `json:"intermediate_size"`
	MaxPositionEmbeddings int         `json:"max_position_embeddings"`
	MaxWindowLayers       int         `json:"max_window_layers"`
	ModelType             string      `json:"model_type"`
	NumAttentionHeads     int         `json:"num_attention_heads"`
	NumHiddenLayers       int         `json:"num_hidden_layers"`
	NumKeyValueHeads      int         `json:"num_key_value_heads"`
	RMSNormEps            json.Number `json:"rms_norm_eps"`
	RopeScaling           any         `json:"rope_scaling"`
	RopeTheta             int         `json:"rope_theta"`
	SlidingWindow         any         `json:"sliding_window"`
	TieWordEmbeddings     bool        `json:"tie_word_embeddings"`
	TorchDType            string      `json:"torch_dtype"`
	TransformersVersion   string      `json:"transformers_version"`
	UseCache              bool        `json:"use_cache"`
	UseSlidingWindow      bool        `json:"use_sliding_window"`
	VocabSize             int         `json:"vocab_size"`
}

// Qwen3's special ids: bos <|endoftext|>, eos <|im_end|> (docs/spec/qwen3.md §3).
const (
	qwen3BOS = 151643
	qwen3EOS = 151645
)

func qwen3ConfigJSON(s Shape, dtype string) ([]byte, error) {
	torch := map[string]string{"bf16": "bfloat16", "f32": "float32"}[dtype]
	c := qwen3Config{
		Architectures: []string{"Qwen3ForCausalLM"}, AttentionDropout: "0.0",
		BOSTokenID: qwen3BOS, EOSTokenID: qwen3EOS, HeadDim: s.HeadDim(), HiddenAct: "silu",
		HiddenSize: s.HiddenSize, InitializerRange: "0.02", IntermediateSize: s.IntermediateSize,
		MaxPositionEmbeddings: s.MaxPositionEmbeddings, MaxWindowLayers: s.MaxWindowLayers,
		ModelType: "qwen3", NumAttentionHeads: s.NumAttentionHeads, NumHiddenLayers: s.NumHiddenLayers,
		NumKeyValueHeads: s.NumKeyValueHeads, RMSNormEps: "1e-06", RopeTheta: 1000000,
		TieWordEmbeddings: s.TieWordEmbeddings, TorchDType: torch, TransformersVersion: "4.51.0",
		UseCache: true, VocabSize: s.VocabSize,
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("genmodel: config.json: %w", err)
	}
	return append(b, '\n'), nil
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
