package engine

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"loupe/engine/safetensors"
	"loupe/kernels"
)

// qwenVocab is the padded vocabulary of Qwen2.5: a model loaded with the
// real tokenizer needs at least its 151,665 ids.
const qwenVocab = 151936

var tokenizerJSON = sync.OnceValues(func() ([]byte, error) {
	return os.ReadFile(filepath.Join("..", "assets", "qwen2.5", "tokenizer.json"))
})

// loadConfig is tinyConfig with the real vocabulary.
func loadConfig() Config {
	c := tinyConfig()
	c.VocabSize = qwenVocab
	c.EOSTokenIDs = []int{151643}
	return c
}

// configJSON writes cfg as transformers does.
func configJSON(cfg Config) map[string]any {
	return map[string]any{
		"architectures": []string{"Qwen2ForCausalLM"}, "model_type": "qwen2",
		"hidden_size": cfg.HiddenSize, "intermediate_size": cfg.IntermediateSize,
		"num_hidden_layers": cfg.NumHiddenLayers, "num_attention_heads": cfg.NumAttentionHeads,
		"num_key_value_heads": cfg.NumKeyValueHeads, "head_dim": cfg.HeadDim,
		"hidden_act": "silu", "rms_norm_eps": cfg.RMSNormEps, "rope_theta": cfg.RopeTheta,
		"rope_scaling": nil, "max_position_embeddings": cfg.MaxPositionEmbeddings,
		"use_sliding_window": false, "sliding_window": 4096, "max_window_layers": 21,
		"tie_word_embeddings": cfg.TieWordEmbeddings, "vocab_size": cfg.VocabSize,
		"eos_token_id": cfg.EOSTokenIDs[0], "torch_dtype": "bfloat16",
	}
}

// writeModel writes a model folder for ref in dtype ("BF16" or "F32");
// edit may change the config or the tensors before they are written.
func writeModel(t *testing.T, cfg Config, ref refTensors, dtype string, edit func(conf map[string]any, ts map[string]*safetensors.Tensor)) string {
	t.Helper()
	dir := t.TempDir()
	ts := map[string]*safetensors.Tensor{}
	for name, v := range ref.val {
		ts[name] = &safetensors.Tensor{Name: name, DType: safetensors.DType(dtype), Shape: ref.shape[name], Data: encode(v, dtype)}
	}
	conf := configJSON(cfg)
	if edit != nil {
		edit(conf, ts)
	}
	var list []safetensors.Tensor
	for _, tt := range ts {
		list = append(list, *tt)
	}
	if err := safetensors.Write(filepath.Join(dir, "model.safetensors"), list, map[string]string{"format": "pt"}); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(conf)
	tok, err := tokenizerJSON()
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"config.json": data, "tokenizer.json": tok} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func encode(v []float64, dtype string) []byte {
	if dtype == "F16" {
		b := make([]byte, 2*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint16(b[2*i:], toF16(x))
		}
		return b
	}
	if dtype == "F32" {
		b := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(x)))
		}
		return b
	}
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(math.Float32bits(float32(x))>>16)) // exact: x is bf16
	}
	return b
}

func TestLoadMatchesReference(t *testing.T) {
	for _, tc := range []struct {
		dtype string
		tied  bool
	}{{"BF16", true}, {"F32", true}, {"BF16", false}, {"F16", true}} {
		t.Run(tc.dtype+map[bool]string{true: "/tied", false: "/untied"}[tc.tied], func(t *testing.T) {
			cfg := loadConfig()
			cfg.TieWordEmbeddings = tc.tied
			ref := randomTensors(cfg, 41)
			var fracs []float64
			m, err := Load(writeModel(t, cfg, ref, tc.dtype, nil), LoadOptions{Threads: 2, Progress: func(f float64, _ string) { fracs = append(fracs, f) }})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			if len(fracs) < 3 || fracs[len(fracs)-1] != 1 {
				t.Errorf("progress %v: want several calls ending at 1", fracs)
			}
			tokens := m.Encode("The quick brown fox")
			want := refForward(cfg, ref, tokens, refOptions{})
			got, err := m.forward(context.Background(), tokens, 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d := maxRelDiff(got, want.logits[len(tokens)-1]); d > logitTol {
				t.Fatalf("loaded model's logits differ from the reference by %.3g", d)
			}
			// Again a token at a time: decode's one-token products.
			for i, tok := range tokens {
				if got, err = m.forward(context.Background(), []int{tok}, i, nil); err != nil {
					t.Fatal(err)
				}
			}
			if d := maxRelDiff(got, want.logits[len(tokens)-1]); d > logitTol {
				t.Fatalf("token by token, the logits differ from the reference by %.3g", d)
			}
			info := m.Info()
			// f16 is read in place, 2 bytes a weight, where the CPU has
			// an f16 kernel, else widened to f32 at load.
			f16, f16Size := "f16", 2
			if !kernels.F16Native() {
				f16, f16Size = "f32", 4
			}
			if info.TiedEmbeddings != tc.tied || info.Vocab != qwenVocab || info.DType != map[string]string{"BF16": "bf16", "F32": "f32", "F16": f16}[tc.dtype] {
				t.Errorf("info %+v", info)
			}
			// A decode step reads every layer matrix, the f32 norms and
			// biases, one embedding row and the output head.
			size := int64(map[string]int{"BF16": 2, "F32": 4, "F16": f16Size}[tc.dtype])
			h, I, V, d := int64(cfg.HiddenSize), int64(cfg.IntermediateSize), int64(cfg.VocabSize), int64(cfg.HeadDim)
			q, kv, L := int64(cfg.NumAttentionHeads)*d, int64(cfg.NumKeyValueHeads)*d, int64(cfg.NumHiddenLayers)
			bytes := size*(L*(2*h*q+2*h*kv+3*h*I)+h+V*h) + 4*(L*(2*h+q+2*kv)+h)
			if info.WeightBytesPerTok != bytes || info.OutputBytesPerTok != size*V*h {
				t.Errorf("bytes per token %d (head %d), want %d (head %d)", info.WeightBytesPerTok, info.OutputBytesPerTok, bytes, size*V*h)
			}
		})
	}
}

func TestLoadRefusesBadModels(t *testing.T) {
	cfg := loadConfig()
	ref := randomTensors(cfg, 43)
	cases := []struct {
		name string
		edit func(conf map[string]any, ts map[string]*safetensors.Tensor)
		want error
		text string
	}{
		{"sliding window", func(c map[string]any, _ map[string]*safetensors.Tensor) {
			c["use_sliding_window"], c["max_window_layers"], c["sliding_window"] = true, 1, 16
		}, ErrUnsupported, "use_sliding_window"},
		{"rope type", func(c map[string]any, _ map[string]*safetensors.Tensor) {
			c["rope_scaling"] = map[string]any{"rope_type": "yarn", "factor": 4.0}
		}, ErrUnsupported, "yarn"},
		{"architecture", func(c map[string]any, _ map[string]*safetensors.Tensor) {
			c["architectures"], c["model_type"] = []string{"GemmaForCausalLM"}, "gemma"
		}, ErrUnsupported, "gemma"},
		{"activation", func(c map[string]any, _ map[string]*safetensors.Tensor) { c["hidden_act"] = "gelu" }, ErrUnsupported, "hidden_act"},
		{"kv heads", func(c map[string]any, _ map[string]*safetensors.Tensor) { c["num_key_value_heads"] = 3 }, ErrBadFile, "num_key_value_heads"},
		{"missing tensor", func(_ map[string]any, ts map[string]*safetensors.Tensor) {
			delete(ts, "model.layers.1.self_attn.k_proj.bias")
		}, ErrBadFile, "model.layers.1.self_attn.k_proj.bias"},
		{"wrong shape", func(_ map[string]any, ts map[string]*safetensors.Tensor) {
			ts["model.layers.0.mlp.up_proj.weight"].Shape = []int{cfg.HiddenSize, cfg.IntermediateSize}
		}, ErrBadFile, "model.layers.0.mlp.up_proj.weight"},
		// A config claiming 100,000 layers beside a small file: a mismatch,
		// not a model too large for the machine (the memory check would size
		// a KV cache of 100,000 layers).
		{"layers beyond the weights", func(c map[string]any, _ map[string]*safetensors.Tensor) { c["num_hidden_layers"] = 100000 },
			ErrBadFile, fmt.Sprintf("config.json does not match the weights: it says 100000 layers (num_hidden_layers), the weights hold %d", cfg.NumHiddenLayers)},
		{"untied without lm_head", func(c map[string]any, _ map[string]*safetensors.Tensor) { c["tie_word_embeddings"] = false }, ErrBadFile, "lm_head.weight"},
		{"wrong dtype", func(_ map[string]any, ts map[string]*safetensors.Tensor) {
			n := ts["model.norm.weight"]
			n.DType, n.Data = "I32", make([]byte, 4*cfg.HiddenSize)
		}, ErrUnsupported, "model.norm.weight"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Load(writeModel(t, cfg, ref, "BF16", tc.edit), LoadOptions{})
			if err == nil {
				m.Close()
				t.Fatal("loaded")
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("error %q: want %v naming %q", err, tc.want, tc.text)
			}
		})
	}
}

func TestLoadRefusesModelLargerThanMemory(t *testing.T) {
	cfg := loadConfig()
	dir := writeModel(t, cfg, randomTensors(cfg, 47), "BF16", nil)
	defer func(f func() int64) { memAvailable = f }(memAvailable)
	memAvailable = func() int64 { return 1 << 20 }
	_, err := Load(dir, LoadOptions{})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Load on a 1 MiB machine: %v, want ErrTooLarge", err)
	}
	// both numbers and what to do
	for _, want := range []string{"the weights need", "KV cache for", "1 MB available", "quantised"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
}

// A generation whose KV cache (prompt + max tokens) does not fit in the
// memory available is refused before anything is allocated, and the model
// stays usable for a smaller one.
func TestGenerateRefusesKVCacheLargerThanMemory(t *testing.T) {
	cfg := loadConfig()
	dir := writeModel(t, cfg, randomTensors(cfg, 47), "BF16", nil)
	m, err := Load(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	defer func(f func() int64) { memAvailable = f }(memAvailable)
	weights := m.Info().FileBytes
	need := kvBytes(cfg, 200)
	memAvailable = func() int64 { return weights + need/2 }
	opt := DefaultGenerateOptions()
	opt.Settings.MaxTokens = 190
	if _, err := m.Generate(context.Background(), "hello world", opt, nil); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "lower max tokens") {
		t.Fatalf("Generate with a KV cache twice the memory: %v, want ErrTooLarge saying what to do", err)
	}
	memAvailable = func() int64 { return weights + need*4 + 64<<20 }
	if _, err := m.Generate(context.Background(), "hello world", opt, nil); err != nil {
		t.Fatalf("Generate once memory is there: %v", err)
	}
}

// The memory check counts the captures the panels keep: every generated
// token's attention grows with the square of the run; KeepBytes bounds it.
func TestGenerateMemoryCheckCountsCaptures(t *testing.T) {
	cfg := loadConfig()
	cfg.MaxPositionEmbeddings = 4096
	m, err := Load(writeModel(t, cfg, randomTensors(cfg, 47), "BF16", nil), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	defer func(f func() int64) { memAvailable = f }(memAvailable)
	opt := DefaultGenerateOptions()
	opt.Settings.MaxTokens = 3000
	opt.EOS = []int{-1}
	g, err := m.newGeneration("hello world", m.Encode("hello world"), opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	perKey := int64(cfg.NumHiddenLayers * cfg.NumAttentionHeads * 4)
	// The last prompt token (position 1: 2 keys) and positions 2…3001.
	want := (2 + int64(3000)*(2+3003)/2) * perKey
	if got := g.captureBytes(); got != want {
		t.Fatalf("captureBytes = %d, want %d", got, want)
	}
	weights, kv := m.Info().FileBytes, kvBytes(cfg, 3002)
	memAvailable = func() int64 { return weights + kv + want/2 }
	_, err = m.Generate(context.Background(), "hello world", opt, nil)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "what the panels record") {
		t.Fatalf("Generate with captures beyond the memory: %v, want ErrTooLarge naming the captures", err)
	}
	opt.Settings.MaxTokens = 3
	opt.Attn.KeepBytes = 1 << 20
	g, _ = m.newGeneration("hello world", m.Encode("hello world"), opt, nil)
	opt.Settings.MaxTokens = 3000
	g.opt = opt
	if got, bound := g.captureBytes(), 2*perKey+1<<20+3002*perKey; got != bound {
		t.Fatalf("captureBytes with KeepBytes = %d, want %d", got, bound)
	}
}

func TestLoadFromSafetensorsFileAndGenerationConfig(t *testing.T) {
	cfg := loadConfig()
	dir := writeModel(t, cfg, randomTensors(cfg, 53), "BF16", nil)
	gen := `{"eos_token_id": [151645, 151643], "do_sample": true}`
	if err := os.WriteFile(filepath.Join(dir, "generation_config.json"), []byte(gen), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Load(filepath.Join(dir, "model.safetensors"), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if eos := m.EOS(); len(eos) != 2 || eos[0] != 151645 || eos[1] != 151643 {
		t.Fatalf("eos %v, want [151645 151643] from generation_config.json", eos)
	}
	if got := m.TokenText(m.Encode("hello")[0]); got != "hello" {
		t.Fatalf("TokenText = %q", got)
	}
	// "æ" is the byte-level piece of the lone byte 0xE6: a partial UTF-8
	// sequence, shown as U+FFFD.
	if id, ok := m.Tokenizer().TokenID("æ"); !ok || m.TokenText(id) != "\uFFFD" {
		t.Fatalf("TokenText of the byte 0xE6 (id %d, %v) = %q, want U+FFFD", id, ok, m.TokenText(id))
	}
	if e := m.Embedding(5); len(e) != cfg.HiddenSize || e[3] != m.Embedding(5)[3] || m.Embedding(-1) != nil {
		t.Fatalf("Embedding(5) = %v", e)
	}
	if _, err := Load(filepath.Join(dir, "config.txt"), LoadOptions{}); err == nil {
		t.Fatal("loaded a missing file")
	}
}

// toF16 rounds x (|x| < 65504) to IEEE binary16, to nearest. Every value
// of the test tensors above 2⁻¹⁷ is a bf16 number and is exact in f16.
func toF16(x float64) uint16 {
	var sign uint16
	if x < 0 {
		sign, x = 0x8000, -x
	}
	if x < 1.0/(1<<14) { // subnormal: a multiple of 2⁻²⁴
		return sign | uint16(math.RoundToEven(x*(1<<24)))
	}
	frac, exp := math.Frexp(x) // x = frac·2^exp, frac in [0.5, 1)
	m := math.RoundToEven((frac*2 - 1) * 1024)
	e := exp - 1 + 15
	if m == 1024 {
		m, e = 0, e+1
	}
	return sign | uint16(e)<<10 | uint16(m)
}
