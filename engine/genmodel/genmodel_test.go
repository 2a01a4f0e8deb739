package genmodel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"loupe/assets"
	"loupe/engine/safetensors"
)

// tinyTensors is docs/spec/qwen2.md §2's table written out for h=64, H=4, KV=2,
// d=16, I=128, L=2, V=151936, tied: independent of Shape.Tensors.
func tinyTensors() map[string][]int {
	m := map[string][]int{"model.embed_tokens.weight": {151936, 64}, "model.norm.weight": {64}}
	for i := range 2 {
		p := fmt.Sprintf("model.layers.%d.", i)
		for name, shape := range map[string][]int{
			"input_layernorm.weight": {64}, "post_attention_layernorm.weight": {64},
			"self_attn.q_proj.weight": {64, 64}, "self_attn.q_proj.bias": {64},
			"self_attn.k_proj.weight": {32, 64}, "self_attn.k_proj.bias": {32},
			"self_attn.v_proj.weight": {32, 64}, "self_attn.v_proj.bias": {32},
			"self_attn.o_proj.weight": {64, 64},
			"mlp.gate_proj.weight":    {128, 64}, "mlp.up_proj.weight": {128, 64}, "mlp.down_proj.weight": {64, 128},
		} {
			m[p+name] = shape
		}
	}
	return m
}

func writeTiny(t *testing.T, seed uint64, dtype string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "model")
	if err := Write(dir, "tiny", seed, dtype); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestTinyReopens(t *testing.T) {
	dir := writeTiny(t, 1, "bf16")
	s, err := safetensors.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := tinyTensors()
	if len(s.Names()) != len(want) || len(want) != 2+12*2 {
		t.Fatalf("%d tensors, want %d: %v", len(s.Names()), len(want), s.Names())
	}
	for name, shape := range want {
		tn, ok := s.Tensor(name)
		if !ok {
			t.Fatalf("missing %s", name)
		}
		if tn.DType != "BF16" || !reflect.DeepEqual(tn.Shape, shape) {
			t.Errorf("%s: %s %v, want BF16 %v", name, tn.DType, tn.Shape, shape)
		}
	}
	var conf map[string]any
	readJSON(t, filepath.Join(dir, "config.json"), &conf)
	for k, v := range map[string]any{
		"model_type": "qwen2", "hidden_size": 64.0, "num_hidden_layers": 2.0, "num_attention_heads": 4.0,
		"num_key_value_heads": 2.0, "intermediate_size": 128.0, "vocab_size": 151936.0, "rope_theta": 1e6,
		"rms_norm_eps": 1e-6, "tie_word_embeddings": true, "max_position_embeddings": 4096.0,
		"use_sliding_window": false, "hidden_act": "silu", "torch_dtype": "bfloat16", "rope_scaling": nil,
	} {
		if !reflect.DeepEqual(conf[k], v) {
			t.Errorf("config.json %s = %v, want %v", k, conf[k], v)
		}
	}
	if !reflect.DeepEqual(conf["architectures"], []any{"Qwen2ForCausalLM"}) {
		t.Errorf("architectures = %v", conf["architectures"])
	}
	var gen map[string]any
	readJSON(t, filepath.Join(dir, "generation_config.json"), &gen)
	if gen["eos_token_id"] != 151643.0 {
		t.Errorf("generation_config eos_token_id = %v", gen["eos_token_id"])
	}
	tok, _ := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
	if !bytes.Equal(tok, assets.QwenTokenizer) {
		t.Error("tokenizer.json differs from assets.QwenTokenizer")
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// Same seed ⇒ same bytes; another seed ⇒ other weights. f32 holds the same
// draws: each bf16 value is the f32 value rounded.
func TestDeterministic(t *testing.T) {
	a := writeTiny(t, 42, "bf16")
	b := writeTiny(t, 42, "bf16")
	c := writeTiny(t, 43, "bf16")
	read := func(dir string) []byte {
		x, err := os.ReadFile(filepath.Join(dir, "model.safetensors"))
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	if !bytes.Equal(read(a), read(b)) {
		t.Error("same seed gave different model.safetensors")
	}
	sa, _ := safetensors.Open(a)
	sc, _ := safetensors.Open(c)
	defer sa.Close()
	defer sc.Close()
	ta, _ := sa.Tensor("model.layers.1.mlp.up_proj.weight")
	tc, _ := sc.Tensor("model.layers.1.mlp.up_proj.weight")
	if bytes.Equal(ta.Data, tc.Data) {
		t.Error("seeds 42 and 43 gave the same weights")
	}

	f := writeTiny(t, 42, "f32")
	sf, err := safetensors.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	for _, name := range []string{"model.embed_tokens.weight", "model.layers.0.self_attn.k_proj.bias"} {
		tb, _ := sa.Tensor(name)
		tf, _ := sf.Tensor(name)
		vb, _ := tb.BF16()
		vf, _ := tf.F32()
		if tf.DType != "F32" || len(vb) != len(vf) {
			t.Fatalf("%s: f32 file has %s × %d", name, tf.DType, len(vf))
		}
		for i := range vb {
			if x := float64(vf[i]); math.Abs(float64(vb[i].Float32())-x) > math.Abs(x)/128 {
				t.Fatalf("%s[%d]: bf16 %g, f32 %g", name, i, vb[i].Float32(), vf[i])
			}
		}
	}
}

func TestRefusesExisting(t *testing.T) {
	dir := writeTiny(t, 1, "bf16")
	before, _ := os.ReadFile(filepath.Join(dir, "model.safetensors"))
	if err := Write(dir, "tiny", 2, "bf16"); !errors.Is(err, ErrExists) {
		t.Fatalf("second Write: err = %v, want ErrExists", err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "model.safetensors"))
	if !bytes.Equal(before, after) {
		t.Fatal("existing model was modified")
	}
	for _, name := range []string{"config.json", "model-00001-of-00002.safetensors"} {
		user := t.TempDir()
		p := filepath.Join(user, name)
		os.WriteFile(p, []byte("mine"), 0o644)
		if err := Write(user, "tiny", 1, "bf16"); !errors.Is(err, ErrExists) {
			t.Errorf("folder with %s: err = %v, want ErrExists", name, err)
		}
		if b, _ := os.ReadFile(p); string(b) != "mine" {
			t.Errorf("%s was modified", name)
		}
		if _, err := os.Stat(filepath.Join(user, "model.safetensors")); err == nil {
			t.Errorf("folder with %s: model.safetensors written anyway", name)
		}
	}
}

func TestBadArguments(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	if err := Write(dir, "qwen9", 1, "bf16"); err == nil {
		t.Error("unknown shape accepted")
	}
	if err := Write(dir, "tiny", 1, "f16"); err == nil {
		t.Error("unknown dtype accepted")
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("folder created for a refused request")
	}
}

// Parameter totals of the real shapes equal docs/spec/qwen2.md §5's table.
func TestRealShapesParameterCount(t *testing.T) {
	for name, want := range map[string]int{"qwen2.5-0.5b": 494032768, "qwen2.5-1.5b": 1543714304} {
		s, ok := Lookup(name)
		if !ok {
			t.Fatalf("no shape %s", name)
		}
		total := 0
		for _, sp := range s.Tensors() {
			n := 1
			for _, d := range sp.Shape {
				n *= d
			}
			total += n
		}
		if total != want {
			t.Errorf("%s: %d parameters, want %d", name, total, want)
		}
	}
}

// Each tensor's sample mean and std match its rule.
func TestWeightStatistics(t *testing.T) {
	s, _ := Lookup("tiny")
	for _, sp := range s.Tensors() {
		var buf bytes.Buffer
		if err := writeTensor(&buf, sp, 5, true, make([]byte, chunkBlocks*blockElems*4)); err != nil {
			t.Fatal(err)
		}
		n := buf.Len() / 4
		var sum, sq float64
		for i := range n {
			v := float64(math.Float32frombits(uint32(buf.Bytes()[4*i]) | uint32(buf.Bytes()[4*i+1])<<8 | uint32(buf.Bytes()[4*i+2])<<16 | uint32(buf.Bytes()[4*i+3])<<24))
			sum += v
			sq += v * v
		}
		mean := sum / float64(n)
		std := math.Sqrt(sq/float64(n) - mean*mean)
		tol := 6 * sp.init.std / math.Sqrt(float64(n)) // 6 standard errors
		if math.Abs(mean-sp.init.mean) > tol || math.Abs(std-sp.init.std) > 0.25*sp.init.std {
			t.Errorf("%s: mean %.4g std %.4g, want %.4g ± %.2g, std %.4g", sp.Name, mean, std, sp.init.mean, tol, sp.init.std)
		}
	}
}

// BenchmarkWriteTensor: generation speed without the disk, in GB/s of bf16.
func BenchmarkWriteTensor(b *testing.B) {
	sp := TensorSpec{Name: "model.layers.0.mlp.gate_proj.weight", Shape: []int{8960, 1536}, init: matrix(1536)}
	buf := make([]byte, chunkBlocks*blockElems*4)
	b.SetBytes(8960 * 1536 * 2)
	for b.Loop() {
		if err := writeTensor(io.Discard, sp, 1, false, buf); err != nil {
			b.Fatal(err)
		}
	}
}
