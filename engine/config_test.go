package engine

import (
	"errors"
	"strings"
	"testing"
)

// qwen15Instruct is Qwen2.5-1.5B-Instruct's config.json as re-saved by
// transformers 5.1.0 (rope_parameters, layer_types, dtype); see
// testdata/SOURCES.md. layer_types shortened to 28 entries.
const qwen15Instruct = `{
  "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643,
  "dtype": "float16", "eos_token_id": 151645, "hidden_act": "silu", "hidden_size": 1536,
  "initializer_range": 0.02, "intermediate_size": 8960,
  "layer_types": ["full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention"],
  "max_position_embeddings": 32768, "max_window_layers": 21, "model_type": "qwen2",
  "num_attention_heads": 12, "num_hidden_layers": 28, "num_key_value_heads": 2,
  "pad_token_id": null, "rms_norm_eps": 1e-06,
  "rope_parameters": {"rope_theta": 1000000.0, "rope_type": "default"},
  "sliding_window": null, "tie_word_embeddings": true, "transformers_version": "5.1.0",
  "use_cache": true, "use_sliding_window": false, "vocab_size": 151936
}`

// qwen7B is the transformers 4 spelling: rope_theta at the top level,
// rope_scaling null, untied head (docs/spec/qwen2.md §5).
const qwen7B = `{
  "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 3584,
  "intermediate_size": 18944, "num_hidden_layers": 28, "num_attention_heads": 28,
  "num_key_value_heads": 4, "hidden_act": "silu", "rms_norm_eps": 1e-06,
  "rope_theta": 1000000.0, "rope_scaling": null, "max_position_embeddings": 32768,
  "use_sliding_window": false, "sliding_window": 131072, "max_window_layers": 28,
  "tie_word_embeddings": false, "vocab_size": 152064, "eos_token_id": 151645,
  "torch_dtype": "bfloat16"
}`

func TestParseConfigBothSpellings(t *testing.T) {
	c, err := ParseConfig([]byte(qwen15Instruct))
	if err != nil {
		t.Fatal(err)
	}
	if c.HeadDim != 128 || c.RopeTheta != 1e6 || c.NumKeyValueHeads != 2 || !c.TieWordEmbeddings || c.EOSTokenIDs[0] != 151645 {
		t.Fatalf("1.5B config: %+v", c)
	}
	c, err = ParseConfig([]byte(qwen7B))
	if err != nil {
		t.Fatal(err)
	}
	if c.HeadDim != 128 || c.RopeTheta != 1e6 || c.TieWordEmbeddings || c.VocabSize != 152064 {
		t.Fatalf("7B config: %+v", c)
	}
}

// Parameter counts against docs/spec/qwen2.md §5's table (computed there from the
// published configs, independently of this code).
func TestParameterCounts(t *testing.T) {
	for _, tc := range []struct {
		json  string
		total int64
	}{{qwen15Instruct, 1_543_714_304}, {qwen7B, 7_615_616_512}} {
		c, err := ParseConfig([]byte(tc.json))
		if err != nil {
			t.Fatal(err)
		}
		i := modelInfo(c, weights{}, "", "", 0)
		got := i.ParamsEmbedding + i.ParamsAttention + i.ParamsMLP + i.ParamsNorm + i.ParamsOutput
		if got != tc.total {
			t.Errorf("hidden %d: %d parameters, want %d", c.HiddenSize, got, tc.total)
		}
		if want := int64(2 * c.NumHiddenLayers * c.NumKeyValueHeads * c.HeadDim * 4); i.KVBytesPerToken != want {
			t.Errorf("KV bytes per token %d, want %d", i.KVBytesPerToken, want)
		}
	}
}

func TestParseConfigRefusals(t *testing.T) {
	base := qwen7B
	for _, tc := range []struct {
		old, new string
		want     error
		text     string
	}{
		{`"use_sliding_window": false, "sliding_window": 131072, "max_window_layers": 28`,
			`"use_sliding_window": true, "sliding_window": 4096, "max_window_layers": 21`, ErrUnsupported, "use_sliding_window"},
		{`"rope_scaling": null`, `"rope_scaling": {"type": "linear", "factor": 2}`, ErrUnsupported, "linear"},
		{`"rope_scaling": null`, `"rope_parameters": {"rope_type": "yarn", "rope_theta": 5e5}`, ErrUnsupported, "rope_parameters"},
		{`"model_type": "qwen2"`, `"model_type": "qwen3"`, ErrUnsupported, "model_type"},
		{`["Qwen2ForCausalLM"]`, `["Qwen2MoeForCausalLM"]`, ErrUnsupported, "architectures"},
		{`"num_key_value_heads": 4`, `"num_key_value_heads": 5`, ErrBadFile, "not a multiple"},
		{`"hidden_act": "silu"`, `"hidden_act": "gelu_pytorch_tanh"`, ErrUnsupported, "hidden_act"},
		{`"hidden_size": 3584`, `"hidden_size": 3584, "head_dim": 127`, ErrBadFile, "head_dim"},
		{`"hidden_size": 3584`, `"hidden_size": 3585`, ErrBadFile, "head_dim absent"},
		{`"eos_token_id": 151645`, `"eos_token_id": "x"`, ErrBadFile, "eos_token_id"},
		{`"rope_theta": 1000000.0`, `"rope_theta": -1`, ErrBadFile, "rope_theta"},
		{`"vocab_size": 152064`, `"vocab_size": 0`, ErrBadFile, "vocab_size"},
		{`{`, `[`, ErrBadFile, "config.json"},
	} {
		_, err := ParseConfig([]byte(strings.Replace(base, tc.old, tc.new, 1)))
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: error %v, want %v naming %q", tc.new, err, tc.want, tc.text)
		}
	}
	// A window covering the whole context changes nothing: accepted.
	ok := strings.Replace(base, `"use_sliding_window": false`, `"use_sliding_window": true`, 1)
	if _, err := ParseConfig([]byte(ok)); err != nil {
		t.Errorf("sliding_window 131072 ≥ context 32768: %v", err)
	}
}
