package assets

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var demoRequired = []string{"config.json", "generation_config.json", "tokenizer.json", "model.safetensors", "README.md"}

func TestExtractDemoWritesEveryFileOnce(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	dir, err := extractDemo()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(dir, filepath.Join(cache, "loupe", "demo-")) {
		t.Fatalf("extracted to %s, want under %s/loupe/demo-*", dir, cache)
	}
	for _, name := range demoRequired {
		want, err := fs.ReadFile(DemoFiles(), name)
		if err != nil {
			t.Fatalf("embedded %s: %v", name, err)
		}
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("extracted %s: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: extracted %d bytes differ from the embedded %d", name, len(got), len(want))
		}
	}
	// A second extraction reuses the folder: a marker file survives.
	marker := filepath.Join(dir, "marker")
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := extractDemo()
	if err != nil || again != dir {
		t.Fatalf("second extraction: %q, %v; want %q", again, err, dir)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("second extraction rewrote the folder: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(cache, "loupe"))
	if len(entries) != 1 {
		t.Errorf("cache holds %d entries, want only the model folder (no partial ones)", len(entries))
	}
}

func TestDemoModelDirIsStable(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	a, err := DemoModelDir()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := DemoModelDir()
	if a != b {
		t.Fatalf("DemoModelDir changed: %q then %q", a, b)
	}
	if _, err := os.Stat(filepath.Join(a, "model.safetensors")); err != nil {
		t.Fatal(err)
	}
}

// qwenConfig holds the config.json fields the shape check needs.
type qwenConfig struct {
	Architectures     []string `json:"architectures"`
	ModelType         string   `json:"model_type"`
	HiddenSize        int      `json:"hidden_size"`
	IntermediateSize  int      `json:"intermediate_size"`
	NumHiddenLayers   int      `json:"num_hidden_layers"`
	NumAttentionHeads int      `json:"num_attention_heads"`
	NumKeyValueHeads  int      `json:"num_key_value_heads"`
	VocabSize         int      `json:"vocab_size"`
	EOSTokenID        int      `json:"eos_token_id"`
	TieWordEmbeddings bool     `json:"tie_word_embeddings"`
	UseSlidingWindow  bool     `json:"use_sliding_window"`
	TorchDtype        string   `json:"torch_dtype"`
}

func readDemoJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := fs.ReadFile(DemoFiles(), name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func TestDemoConfigMatchesTokenizer(t *testing.T) {
	var c qwenConfig
	readDemoJSON(t, "config.json", &c)
	if c.ModelType != "qwen2" || len(c.Architectures) != 1 || c.Architectures[0] != "Qwen2ForCausalLM" {
		t.Errorf("config.json: model_type %q, architectures %v", c.ModelType, c.Architectures)
	}
	if !c.TieWordEmbeddings || c.UseSlidingWindow || c.TorchDtype != "bfloat16" {
		t.Errorf("config.json: tie %v, sliding window %v, dtype %q", c.TieWordEmbeddings, c.UseSlidingWindow, c.TorchDtype)
	}
	var tok struct {
		AddedTokens []struct {
			ID      int    `json:"id"`
			Content string `json:"content"`
			Special bool   `json:"special"`
		} `json:"added_tokens"`
		Model struct {
			Vocab  map[string]int `json:"vocab"`
			Merges [][2]string    `json:"merges"`
		} `json:"model"`
	}
	readDemoJSON(t, "tokenizer.json", &tok)
	if n := len(tok.Model.Vocab) + len(tok.AddedTokens); n != c.VocabSize {
		t.Errorf("tokenizer has %d ids, config vocab_size %d", n, c.VocabSize)
	}
	if len(tok.AddedTokens) != 1 || tok.AddedTokens[0].Content != "<|endoftext|>" ||
		!tok.AddedTokens[0].Special || tok.AddedTokens[0].ID != c.EOSTokenID {
		t.Errorf("added tokens %+v, eos_token_id %d", tok.AddedTokens, c.EOSTokenID)
	}
	for i, m := range tok.Model.Merges {
		if _, ok := tok.Model.Vocab[m[0]+m[1]]; !ok {
			t.Fatalf("merge %d %q+%q: result not in the vocabulary", i, m[0], m[1])
		}
	}
}

// TestDemoSafetensorsShapes reads the header by hand and checks the tensor
// set of docs/spec/qwen2.md §2: 2+12·L BF16 tensors, contiguous, no lm_head.
func TestDemoSafetensorsShapes(t *testing.T) {
	var c qwenConfig
	readDemoJSON(t, "config.json", &c)
	b, err := fs.ReadFile(DemoFiles(), "model.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 25<<20 {
		t.Errorf("model.safetensors is %d bytes, over 25 MiB", len(b))
	}
	n := binary.LittleEndian.Uint64(b)
	var header map[string]struct {
		Dtype   string   `json:"dtype"`
		Shape   []int    `json:"shape"`
		Offsets [2]int64 `json:"data_offsets"`
	}
	if err := json.Unmarshal(b[8:8+n], &header); err != nil {
		t.Fatal(err)
	}
	delete(header, "__metadata__")
	want := expectedShapes(c)
	if len(header) != len(want) {
		t.Errorf("%d tensors, want %d", len(header), len(want))
	}
	var total int64
	for name, shape := range want {
		info, ok := header[name]
		if !ok {
			t.Errorf("missing %s", name)
			continue
		}
		if info.Dtype != "BF16" || fmt.Sprint(info.Shape) != fmt.Sprint(shape) {
			t.Errorf("%s: %s %v, want BF16 %v", name, info.Dtype, info.Shape, shape)
		}
		total += info.Offsets[1] - info.Offsets[0]
	}
	if got := int64(len(b)) - 8 - int64(n); got != total {
		t.Errorf("data is %d bytes, tensors claim %d", got, total)
	}
}

func expectedShapes(c qwenConfig) map[string][]int {
	h, I, d := c.HiddenSize, c.IntermediateSize, c.HiddenSize/c.NumAttentionHeads
	q, kv := c.NumAttentionHeads*d, c.NumKeyValueHeads*d
	want := map[string][]int{"model.embed_tokens.weight": {c.VocabSize, h}, "model.norm.weight": {h}}
	for i := 0; i < c.NumHiddenLayers; i++ {
		p := fmt.Sprintf("model.layers.%d.", i)
		for k, v := range map[string][]int{
			"input_layernorm.weight": {h}, "post_attention_layernorm.weight": {h},
			"self_attn.q_proj.weight": {q, h}, "self_attn.q_proj.bias": {q},
			"self_attn.k_proj.weight": {kv, h}, "self_attn.k_proj.bias": {kv},
			"self_attn.v_proj.weight": {kv, h}, "self_attn.v_proj.bias": {kv},
			"self_attn.o_proj.weight": {h, q},
			"mlp.gate_proj.weight":    {I, h}, "mlp.up_proj.weight": {I, h}, "mlp.down_proj.weight": {h, I},
		} {
			want[p+k] = v
		}
	}
	return want
}

func TestDemoPrompts(t *testing.T) {
	if len(DemoPrompts) < 5 || len(DemoPrompts) > 8 {
		t.Errorf("%d demo prompts, want 5 to 8", len(DemoPrompts))
	}
	for i, p := range DemoPrompts {
		if strings.TrimSpace(p) == "" {
			t.Errorf("prompt %d is empty", i)
		}
	}
}

func TestDemoCaptions(t *testing.T) {
	if !strings.HasPrefix(DemoPrompts[0], "My cat is purple.") {
		t.Errorf("first demo prompt %q, want the purple-cat sentence", DemoPrompts[0])
	}
	for _, d := range DemoExamples {
		if strings.TrimSpace(d.Caption) == "" || strings.Contains(d.Caption, "\n") {
			t.Errorf("prompt %q: caption %q, want one non-empty line", d.Text, d.Caption)
		}
		if DemoCaption(d.Text) != d.Caption {
			t.Errorf("DemoCaption(%q) = %q", d.Text, DemoCaption(d.Text))
		}
	}
	if DemoCaption("not a demo prompt") != "" {
		t.Error("caption for a prompt that is not a demo prompt")
	}
}
