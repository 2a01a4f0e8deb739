package hub

import (
	"errors"
	"fmt"
	"strings"

	"loupe/engine"
)

// Entry is one model of the "Get a model…" list.
type Entry struct {
	ID      string // ORG/NAME on the Hub
	Title   string // short name for the list
	Bytes   int64  // approximate download (bf16 safetensors + tokenizer), from the Hub's file list
	Licence string
	Shows   string // what it shows well in Loupe
	// Config holds the keys of the repo's config.json that decide whether
	// the engine runs it; Supported hands them to engine.ParseConfig, so
	// the list follows the engine as it learns architectures. Once the
	// model is on disk its real config.json decides.
	Config string
}

// Catalog is the short list offered to a teacher: the model of the article
// (“The two times of an answer”) first, small ones for slow machines, one
// of each family Loupe shows.
var Catalog = []Entry{
	{ID: "Qwen/Qwen2.5-1.5B", Title: "Qwen2.5 1.5B (base)", Bytes: 3_100_000_000, Licence: "Apache-2.0",
		Shows:  "The model of the article “The two times of an answer”: the purple-cat prompt, attention sinks, reading vs writing. Continues text.",
		Config: qwen2Config(1536, 8960, 28, 12, 2)},
	{ID: "Qwen/Qwen2.5-1.5B-Instruct", Title: "Qwen2.5 1.5B Instruct", Bytes: 3_100_000_000, Licence: "Apache-2.0",
		Shows:  "Qwen2.5 1.5B tuned for chat: answers questions, follows instructions (chat template).",
		Config: qwen2Config(1536, 8960, 28, 12, 2)},
	{ID: "Qwen/Qwen2.5-0.5B", Title: "Qwen2.5 0.5B (base)", Bytes: 1_000_000_000, Licence: "Apache-2.0",
		Shows:  "Quickest to try on an old laptop: 24 layers × 14 heads, about 3× faster than 1.5B.",
		Config: qwen2Config(896, 4864, 24, 14, 2)},
	{ID: "Qwen/Qwen2.5-0.5B-Instruct", Title: "Qwen2.5 0.5B Instruct", Bytes: 1_000_000_000, Licence: "Apache-2.0",
		Shows:  "The smallest chat model: short answers, fast on any machine.",
		Config: qwen2Config(896, 4864, 24, 14, 2)},
	{ID: "Qwen/Qwen3-0.6B", Title: "Qwen3 0.6B", Bytes: 1_520_000_000, Licence: "Apache-2.0",
		Shows: "The next family: q/k norm in every head, a thinking mode (<think>…</think>).",
		Config: `{"architectures":["Qwen3ForCausalLM"],"model_type":"qwen3","hidden_size":1024,"intermediate_size":3072,` +
			`"num_hidden_layers":28,"num_attention_heads":16,"num_key_value_heads":8,"head_dim":128,"hidden_act":"silu",` +
			`"rms_norm_eps":1e-06,"rope_theta":1000000,"max_position_embeddings":40960,"tie_word_embeddings":true,` +
			`"vocab_size":151936,"use_sliding_window":false,"attention_bias":false}`},
	{ID: "Qwen/Qwen3-1.7B", Title: "Qwen3 1.7B", Bytes: 4_070_000_000, Licence: "Apache-2.0",
		Shows: "Qwen3 at about the size of Qwen2.5 1.5B: compare their attention.",
		Config: `{"architectures":["Qwen3ForCausalLM"],"model_type":"qwen3","hidden_size":2048,"intermediate_size":6144,` +
			`"num_hidden_layers":28,"num_attention_heads":16,"num_key_value_heads":8,"head_dim":128,"hidden_act":"silu",` +
			`"rms_norm_eps":1e-06,"rope_theta":1000000,"max_position_embeddings":40960,"tie_word_embeddings":true,` +
			`"vocab_size":151936,"use_sliding_window":false,"attention_bias":false}`},
	{ID: "Qwen/Qwen3.5-2B", Title: "Qwen3.5 2B", Bytes: 4_600_000_000, Licence: "Apache-2.0",
		Shows:  "A hybrid: linear-attention (Gated DeltaNet) layers between full-attention ones.",
		Config: `{"architectures":["Qwen3_5ForConditionalGeneration"],"model_type":"qwen3_5"}`},
	{ID: "HuggingFaceTB/SmolLM2-360M-Instruct", Title: "SmolLM2 360M Instruct (Llama family)", Bytes: 730_000_000,
		Licence: "Apache-2.0",
		Shows:   "A Llama-architecture model: another tokenizer, no QKV bias, 32 layers; tiny and fast.",
		Config: `{"architectures":["LlamaForCausalLM"],"model_type":"llama","hidden_size":960,"intermediate_size":2560,` +
			`"num_hidden_layers":32,"num_attention_heads":15,"num_key_value_heads":5,"hidden_act":"silu",` +
			`"rms_norm_eps":1e-05,"rope_theta":100000,"max_position_embeddings":8192,"tie_word_embeddings":true,` +
			`"vocab_size":49152,"attention_bias":false,"mlp_bias":false}`},
}

func qwen2Config(h, inter, layers, heads, kv int) string {
	return fmt.Sprintf(`{"architectures":["Qwen2ForCausalLM"],"model_type":"qwen2","hidden_size":%d,"intermediate_size":%d,`+
		`"num_hidden_layers":%d,"num_attention_heads":%d,"num_key_value_heads":%d,"hidden_act":"silu","rms_norm_eps":1e-06,`+
		`"rope_theta":1000000,"max_position_embeddings":32768,"tie_word_embeddings":true,"vocab_size":151936,`+
		`"use_sliding_window":false}`, h, inter, layers, heads, kv)
}

// Supported says whether this build of the engine runs the entry's
// architecture, and if not, the engine's reason.
func (e Entry) Supported() (bool, string) {
	_, err := engine.ParseConfig([]byte(e.Config))
	if err == nil {
		return true, ""
	}
	if errors.Is(err, engine.ErrUnsupported) {
		return false, "not in this version of Loupe yet: " + strings.TrimPrefix(err.Error(), "config.json: ")
	}
	return false, strings.TrimPrefix(err.Error(), "config.json: ")
}

// Local reports whether the entry's main revision is in the cache, and
// its snapshot folder.
func (e Entry) Local(cache string) (string, bool) {
	dir, ok := Repo{Cache: cache, ID: e.ID}.Resolve("main")
	if !ok {
		return "", false
	}
	if ok, _ := CheckFolder(dir); !ok {
		return "", false
	}
	return dir, true
}
