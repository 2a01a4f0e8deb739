package genmodel

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"loupe/assets"
	"loupe/engine/safetensors"
)

// Parameter totals of the Qwen3 shapes equal docs/spec/qwen3.md §3's table.
func TestQwen3ShapesParameterCount(t *testing.T) {
	for name, want := range map[string]int{"qwen3-0.6b": 596_049_920, "qwen3-1.7b": 1_720_574_976} {
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

func TestTinyQwen3Folder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	if err := Write(dir, "tiny-qwen3", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	s, err := safetensors.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := len(s.Names()); n != 2+11*2 {
		t.Errorf("%d tensors, want 24", n)
	}
	for name, shape := range map[string][]int{
		"model.layers.1.self_attn.q_proj.weight": {128, 64}, "model.layers.1.self_attn.o_proj.weight": {64, 128},
		"model.layers.1.self_attn.k_proj.weight": {64, 64}, "model.layers.0.self_attn.q_norm.weight": {32},
		"model.layers.0.self_attn.k_norm.weight": {32},
	} {
		if tn, ok := s.Tensor(name); !ok || !reflect.DeepEqual(tn.Shape, shape) {
			t.Errorf("%s: %v %v, want %v", name, ok, tn.Shape, shape)
		}
	}
	if _, ok := s.Tensor("model.layers.0.self_attn.q_proj.bias"); ok {
		t.Error("Qwen3 has no q_proj.bias")
	}
	var conf map[string]any
	readJSON(t, filepath.Join(dir, "config.json"), &conf)
	for k, v := range map[string]any{"model_type": "qwen3", "head_dim": 32.0, "attention_bias": false,
		"rope_theta": 1e6, "eos_token_id": 151645.0, "architectures": []any{"Qwen3ForCausalLM"}} {
		if !reflect.DeepEqual(conf[k], v) {
			t.Errorf("config.json %s = %v, want %v", k, conf[k], v)
		}
	}
	var gen map[string]any
	readJSON(t, filepath.Join(dir, "generation_config.json"), &gen)
	if !reflect.DeepEqual(gen["eos_token_id"], []any{151645.0, 151643.0}) || gen["temperature"] != 0.6 {
		t.Errorf("generation_config.json %v", gen)
	}
	for name, want := range map[string][]byte{"tokenizer.json": assets.Qwen3Tokenizer(), "tokenizer_config.json": assets.Qwen3TokenizerConfig} {
		if got, _ := os.ReadFile(filepath.Join(dir, name)); !bytes.Equal(got, want) {
			t.Errorf("%s differs from the asset", name)
		}
	}
	// A second write into the folder is refused (tokenizer_config.json too).
	os.Remove(filepath.Join(dir, "model.safetensors"))
	os.Remove(filepath.Join(dir, "config.json"))
	os.Remove(filepath.Join(dir, "generation_config.json"))
	os.Remove(filepath.Join(dir, "tokenizer.json"))
	if err := Write(dir, "tiny-qwen3", 1, "bf16"); err == nil {
		t.Error("tokenizer_config.json overwritten")
	}
}
