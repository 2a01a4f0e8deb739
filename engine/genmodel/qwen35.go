package genmodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"sync"

	"loupe/assets"
	"loupe/engine/tokenizer"
)

// HybridShape is what a Qwen3.5 shape adds (docs/spec/qwen35.md §1): the layer
// pattern and the Gated DeltaNet sizes.
type HybridShape struct {
	FullAttentionInterval int // every N-th layer is full attention
	LinearNumKeyHeads     int // n_k
	LinearNumValueHeads   int // n_v
	LinearKeyHeadDim      int // d_k
	LinearValueHeadDim    int // d_v
	LinearConvKernelDim   int // K
	PartialRotaryFactor   float64
}

// Qwen3.5 shapes: the 2B as docs/spec/qwen35.md §1 gives it, and a tiny one with the
// real 248,320-row vocabulary and n_v ≠ n_k.
func init() {
	shapes["qwen3.5-2b"] = Shape{Family: "qwen3_5", HiddenSize: 2048, IntermediateSize: 6144, NumHiddenLayers: 24,
		NumAttentionHeads: 8, NumKeyValueHeads: 2, ExplicitHeadDim: 256, VocabSize: 248320,
		MaxPositionEmbeddings: 262144, TieWordEmbeddings: true,
		Hybrid: &HybridShape{FullAttentionInterval: 4, LinearNumKeyHeads: 16, LinearNumValueHeads: 16,
			LinearKeyHeadDim: 128, LinearValueHeadDim: 128, LinearConvKernelDim: 4, PartialRotaryFactor: 0.25}}
	shapes["tiny-qwen35"] = Shape{Family: "qwen3_5", HiddenSize: 64, IntermediateSize: 128, NumHiddenLayers: 4,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, ExplicitHeadDim: 32, VocabSize: 248320,
		MaxPositionEmbeddings: 4096, TieWordEmbeddings: true,
		Hybrid: &HybridShape{FullAttentionInterval: 2, LinearNumKeyHeads: 2, LinearNumValueHeads: 4,
			LinearKeyHeadDim: 16, LinearValueHeadDim: 16, LinearConvKernelDim: 4, PartialRotaryFactor: 0.25}}
}

// Qwen3.5's random draws (docs/spec/qwen35.md §3, §5): norms centred on 0 (scale
// 1 + w) except the gated norm (centred on 1); A_log near log(e) and
// dt_bias near −3, so decays α = exp(−e^A_log·softplus(a + dt_bias)) lie
// mostly in 0.7…1 as in trained models' slow and fast heads.
func zeroNorm() initRule { return initRule{0, 0.05} }

// qwen35Tensors lists docs/spec/qwen35.md §4–§6 under model.language_model., plus
// two small stand-ins for the parts a text engine skips (model.visual.*,
// mtp.*), so loading exercises the skipping; they are not real shapes.
func (s Shape) qwen35Tensors() []TensorSpec {
	h, d, I, V, hy := s.HiddenSize, s.HeadDim(), s.IntermediateSize, s.VocabSize, s.Hybrid
	qd, kvd := s.NumAttentionHeads*d, s.NumKeyValueHeads*d
	kd, vd := hy.LinearNumKeyHeads*hy.LinearKeyHeadDim, hy.LinearNumValueHeads*hy.LinearValueHeadDim
	C, nv := 2*kd+vd, hy.LinearNumValueHeads
	pre := "model.language_model."
	out := []TensorSpec{{pre + "embed_tokens.weight", []int{V, h}, embedding(h)}}
	for i := range s.NumHiddenLayers {
		p := pre + "layers." + strconv.Itoa(i) + "."
		out = append(out,
			TensorSpec{p + "input_layernorm.weight", []int{h}, zeroNorm()},
			TensorSpec{p + "post_attention_layernorm.weight", []int{h}, zeroNorm()},
			TensorSpec{p + "mlp.gate_proj.weight", []int{I, h}, matrix(h)},
			TensorSpec{p + "mlp.up_proj.weight", []int{I, h}, matrix(h)},
			TensorSpec{p + "mlp.down_proj.weight", []int{h, I}, matrix(I)},
		)
		if (i+1)%hy.FullAttentionInterval == 0 {
			a := p + "self_attn."
			out = append(out,
				TensorSpec{a + "q_proj.weight", []int{2 * qd, h}, matrix(h)},
				TensorSpec{a + "k_proj.weight", []int{kvd, h}, matrix(h)},
				TensorSpec{a + "v_proj.weight", []int{kvd, h}, matrix(h)},
				TensorSpec{a + "o_proj.weight", []int{h, qd}, matrix(qd)},
				TensorSpec{a + "q_norm.weight", []int{d}, zeroNorm()},
				TensorSpec{a + "k_norm.weight", []int{d}, zeroNorm()},
			)
			continue
		}
		a := p + "linear_attn."
		out = append(out,
			TensorSpec{a + "in_proj_qkv.weight", []int{C, h}, matrix(h)},
			TensorSpec{a + "in_proj_z.weight", []int{vd, h}, matrix(h)},
			TensorSpec{a + "in_proj_b.weight", []int{nv, h}, matrix(h)},
			TensorSpec{a + "in_proj_a.weight", []int{nv, h}, matrix(h)},
			TensorSpec{a + "conv1d.weight", []int{C, 1, hy.LinearConvKernelDim}, initRule{0, 0.5}},
			TensorSpec{a + "dt_bias", []int{nv}, initRule{-3, 0.5}},
			TensorSpec{a + "A_log", []int{nv}, initRule{1, 0.5}},
			TensorSpec{a + "norm.weight", []int{hy.LinearValueHeadDim}, norm()},
			TensorSpec{a + "out_proj.weight", []int{h, vd}, matrix(vd)},
		)
	}
	out = append(out, TensorSpec{pre + "norm.weight", []int{h}, zeroNorm()},
		TensorSpec{"model.visual.merger.norm.weight", []int{64}, norm()}, // stand-ins, skipped by the engine
		TensorSpec{"mtp.norm.weight", []int{h}, zeroNorm()})
	if !s.TieWordEmbeddings {
		out = append(out, TensorSpec{"lm_head.weight", []int{V, h}, embedding(h)})
	}
	return out
}

// qwen35ConfigFields are the vision-language wrapper with a nested
// text_config, as the official checkpoints write it (docs/spec/qwen35.md §1).
func qwen35ConfigFields(s Shape, torch string) map[string]any {
	hy := s.Hybrid
	text := map[string]any{
		"model_type": "qwen3_5_text", "hidden_size": s.HiddenSize, "num_hidden_layers": s.NumHiddenLayers,
		"intermediate_size": s.IntermediateSize, "vocab_size": s.VocabSize,
		"num_attention_heads": s.NumAttentionHeads, "num_key_value_heads": s.NumKeyValueHeads,
		"head_dim": s.HeadDim(), "attention_bias": false, "attn_output_gate": true, "hidden_act": "silu",
		"rms_norm_eps": json.Number("1e-06"),
		"rope_parameters": map[string]any{"rope_type": "default", "rope_theta": 10000000,
			"partial_rotary_factor": hy.PartialRotaryFactor, "mrope_interleaved": true, "mrope_section": []int{11, 11, 10}},
		"full_attention_interval": hy.FullAttentionInterval,
		"linear_num_key_heads":    hy.LinearNumKeyHeads, "linear_num_value_heads": hy.LinearNumValueHeads,
		"linear_key_head_dim": hy.LinearKeyHeadDim, "linear_value_head_dim": hy.LinearValueHeadDim,
		"linear_conv_kernel_dim": hy.LinearConvKernelDim, "mamba_ssm_dtype": "float32",
		"max_position_embeddings": s.MaxPositionEmbeddings, "tie_word_embeddings": s.TieWordEmbeddings,
		"mtp_num_hidden_layers": 1, "eos_token_id": qwen35EndOfText, "dtype": torch,
	}
	return map[string]any{
		"architectures": []string{"Qwen3_5ForConditionalGeneration"}, "model_type": "qwen3_5",
		"image_token_id": 248056, "video_token_id": 248057, "vision_start_token_id": 248053,
		"vision_end_token_id": 248054, "tie_word_embeddings": false,
		"vision_config": map[string]any{"model_type": "qwen3_5", "depth": 0}, // not written: a stand-in
		"text_config":   text, "transformers_version": "5.2.0",
	}
}

// Qwen3.5's special ids (docs/spec/qwen35.md §8, unverified against the official
// tokenizer.json): Qwen3's added tokens moved up by 96,401, so that
// <|endoftext|> 151643 → 248044 and </think> 151668 → 248069.
const (
	qwen35EndOfText = 248044
	qwen35Shift     = 248044 - 151643
)

const qwen35GenerationConfig = `{
  "bos_token_id": 248044,
  "do_sample": true,
  "eos_token_id": [
    248046,
    248044
  ],
  "pad_token_id": 248044,
  "temperature": 0.6,
  "top_k": 20,
  "top_p": 0.95,
  "transformers_version": "5.2.0"
}
`

var addedID = regexp.MustCompile(`"id":(1516[4-9][0-9])`)

// qwen35Tokenizer is a stand-in for Qwen3.5's tokenizer.json: Qwen3's
// byte-level BPE (its 151,643 regular tokens; the real Qwen3.5 vocabulary
// is a different, larger one) with the Qwen3.5 pre-tokenizer pattern and
// the added tokens at Qwen3.5's ids, so that the chat markup and <think>
// have the ids a real file gives them. The embedding has 248,320 rows.
var qwen35Tokenizer = sync.OnceValue(func() []byte {
	src := assets.Qwen3Tokenizer()
	end := bytes.Index(src, []byte(`"normalizer"`)) // the added tokens come first
	head := addedID.ReplaceAllFunc(src[:end], func(m []byte) []byte {
		id, _ := strconv.Atoi(string(m[5:]))
		return []byte(`"id":` + strconv.Itoa(id+qwen35Shift))
	})
	oldPat, _ := json.Marshal(tokenizer.QwenPattern)
	newPat, _ := json.Marshal(tokenizer.Qwen35Pattern)
	tail := bytes.Replace(src[end:], oldPat, newPat, 1)
	return append(append([]byte(nil), head...), tail...)
})

// qwen35TokenizerConfig is Qwen3's tokenizer_config.json with the added
// tokens at Qwen3.5's ids and the generation prompt of the small Qwen3.5
// models (docs/spec/qwen35.md §8, unverified): thinking only when enable_thinking is
// true, otherwise an empty think block.
func qwen35TokenizerConfig() ([]byte, error) {
	var c map[string]any
	if err := json.Unmarshal(assets.Qwen3TokenizerConfig, &c); err != nil {
		return nil, fmt.Errorf("genmodel: tokenizer_config.json: %w", err)
	}
	if dec, ok := c["added_tokens_decoder"].(map[string]any); ok {
		moved := map[string]any{}
		for k, v := range dec {
			id, err := strconv.Atoi(k)
			if err == nil {
				k = strconv.Itoa(id + qwen35Shift)
			}
			moved[k] = v
		}
		c["added_tokens_decoder"] = moved
	}
	tmpl, _ := c["chat_template"].(string)
	const qwen3Prompt = "    {%- if enable_thinking is defined and enable_thinking is false %}\n        {{- '<think>\\n\\n</think>\\n\\n' }}\n    {%- endif %}"
	const qwen35Prompt = "    {%- if enable_thinking is defined and enable_thinking is true %}\n        {{- '<think>\\n' }}\n    {%- else %}\n        {{- '<think>\\n\\n</think>\\n\\n' }}\n    {%- endif %}"
	if !bytes.Contains([]byte(tmpl), []byte(qwen3Prompt)) {
		return nil, fmt.Errorf("genmodel: Qwen3 chat template: generation prompt not found")
	}
	c["chat_template"] = string(bytes.Replace([]byte(tmpl), []byte(qwen3Prompt), []byte(qwen35Prompt), 1))
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("genmodel: tokenizer_config.json: %w", err)
	}
	return append(b, '\n'), nil
}

// qwen35Files are the folder's text files besides config.json.
func qwen35Files() ([]namedFile, error) {
	tc, err := qwen35TokenizerConfig()
	if err != nil {
		return nil, err
	}
	return []namedFile{
		{"generation_config.json", []byte(qwen35GenerationConfig)},
		{"tokenizer.json", qwen35Tokenizer()},
		{"tokenizer_config.json", tc},
	}, nil
}
