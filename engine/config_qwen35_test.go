package engine

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// qwen35_2B is the shape of Qwen3.5-2B's config.json as docs/spec/qwen35.md §1 gives
// it (values from several independent copies; the official file was not
// read): the vision-language wrapper with a nested text_config.
const qwen35_2B = `{
  "architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5",
  "image_token_id": 248056, "video_token_id": 248057, "vision_start_token_id": 248053,
  "vision_end_token_id": 248054, "tie_word_embeddings": false,
  "vision_config": {"depth": 24, "hidden_size": 1024, "model_type": "qwen3_5"},
  "text_config": {
    "model_type": "qwen3_5_text", "hidden_size": 2048, "num_hidden_layers": 24,
    "intermediate_size": 6144, "vocab_size": 248320, "num_attention_heads": 8,
    "num_key_value_heads": 2, "head_dim": 256, "attention_bias": false, "attn_output_gate": true,
    "rms_norm_eps": 1e-06, "hidden_act": "silu",
    "rope_parameters": {"rope_type": "default", "rope_theta": 10000000, "partial_rotary_factor": 0.25,
      "mrope_interleaved": true, "mrope_section": [11, 11, 10]},
    "full_attention_interval": 4, "linear_num_key_heads": 16, "linear_num_value_heads": 16,
    "linear_key_head_dim": 128, "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4,
    "mamba_ssm_dtype": "float32", "max_position_embeddings": 262144, "tie_word_embeddings": true,
    "mtp_num_hidden_layers": 1, "eos_token_id": 248044, "dtype": "bfloat16"
  }
}`

func TestParseQwen35Config(t *testing.T) {
	c, err := ParseConfig([]byte(qwen35_2B))
	if err != nil {
		t.Fatal(err)
	}
	q := c.Qwen35
	if c.HiddenSize != 2048 || c.NumHiddenLayers != 24 || c.HeadDim != 256 || c.NumKeyValueHeads != 2 ||
		!c.TieWordEmbeddings || c.RopeTheta != 1e7 || c.VocabSize != 248320 || c.EOSTokenIDs[0] != 248044 {
		t.Fatalf("2B config: %+v", c)
	}
	if c.RotaryDim != 64 || q.Linear.NK != 16 || q.Linear.NV != 16 || q.Linear.DK != 128 || q.Linear.Conv != 4 {
		t.Fatalf("2B Qwen3.5 settings: %+v", q)
	}
	if got := q.FullAttentionLayers(); !slices.Equal(got, []int{3, 7, 11, 15, 19, 23}) {
		t.Fatalf("full-attention layers %v (want every 4th from 3)", got)
	}
	if q.Linear.ConvDim() != 6144 {
		t.Fatalf("conv_dim %d", q.Linear.ConvDim())
	}
}

// A text-only export: everything at the top level, layer_types spelled
// out (it wins over full_attention_interval), legacy partial_rotary_factor
// at the top, n_v ≠ n_k.
func TestParseQwen35TextOnly(t *testing.T) {
	js := `{"architectures": ["Qwen3_5ForCausalLM"], "model_type": "qwen3_5_text", "hidden_size": 64,
	  "num_hidden_layers": 3, "intermediate_size": 96, "vocab_size": 500, "num_attention_heads": 2,
	  "num_key_value_heads": 1, "head_dim": 32, "rope_theta": 10000, "partial_rotary_factor": 0.5,
	  "layer_types": ["full_attention", "linear_attention", "linear_attention"], "full_attention_interval": 2,
	  "linear_num_key_heads": 2, "linear_num_value_heads": 4, "linear_key_head_dim": 8,
	  "linear_value_head_dim": 16, "linear_conv_kernel_dim": 3}`
	c, err := ParseConfig([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	q := c.Qwen35
	if c.TieWordEmbeddings || c.RopeTheta != 1e4 || c.RotaryDim != 16 || !slices.Equal(q.FullAttentionLayers(), []int{0}) {
		t.Fatalf("text-only config: %+v %+v", c, q)
	}
	if q.Linear.KeyHead(3) != 1 || q.Linear.KeyHead(1) != 0 {
		t.Fatalf("value heads 1 and 3 read key heads %d and %d (want 0 and 1: grouped, not tiled)", q.Linear.KeyHead(1), q.Linear.KeyHead(3))
	}
}

func TestParseQwen35Refusals(t *testing.T) {
	for _, tc := range []struct{ from, to, want string }{
		{`"attention_bias": false`, `"attention_bias": true`, "attention_bias"},
		{`"attn_output_gate": true`, `"attn_output_gate": false`, "attn_output_gate"},
		{`"rope_type": "default"`, `"rope_type": "yarn"`, "rope_type"},
		{`"linear_num_value_heads": 16`, `"linear_num_value_heads": 24`, "linear_num_value_heads"},
		{`"full_attention_interval": 4`, `"layer_types": ["sliding_attention"]`, "layer_types"},
		{`"hidden_act": "silu"`, `"hidden_act": "gelu"`, "hidden_act"},
		{`"model_type": "qwen3_5",`, `"model_type": "qwen3_5_moe",`, "model_type"},
		{`"partial_rotary_factor": 0.25`, `"partial_rotary_factor": 0.001`, "partial_rotary_factor"},
	} {
		js := strings.Replace(qwen35_2B, tc.from, tc.to, 1)
		if js == qwen35_2B {
			t.Fatalf("fixture has no %s", tc.from)
		}
		_, err := ParseConfig([]byte(js))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v (want one naming %s)", tc.to, err, tc.want)
		}
		if err != nil && !errors.Is(err, ErrUnsupported) && !errors.Is(err, ErrBadFile) {
			t.Errorf("%s: %v is neither ErrUnsupported nor ErrBadFile", tc.to, err)
		}
	}
}
