package genmodel

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"loupe/engine/chat"
	"loupe/engine/gguf"
)

// TestGGUFModelWritesWhatItIsAsked: q4_k_m is Q4_K and Q6_K only, or a
// refusal saying why (tiny-qwen3's 64-wide rows do not fill their blocks);
// nothing is written on a refusal.
func TestGGUFModelWritesWhatItIsAsked(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "tiny-qwen3.gguf")
	err := WriteGGUFModel(bad, "tiny-qwen3", 1, "q4_k_m")
	if !errors.Is(err, ErrMixDoesNotFit) {
		t.Fatalf("tiny-qwen3 as q4_k_m: %v, want ErrMixDoesNotFit", err)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Error("a refused file was written")
	}
	good := filepath.Join(dir, "tiny-llama.gguf")
	if err := WriteGGUFModel(good, "tiny-llama", 1, "q4_k_m"); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(good)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	matrices := 0
	for _, tn := range f.Tensors {
		if len(tn.Dims) != 2 || tn.Name == "token_embd.weight" {
			continue
		}
		matrices++
		if tn.Type != gguf.Q4_K && tn.Type != gguf.Q6_K {
			t.Errorf("%s is %s in a q4_k_m file", tn.Name, tn.Type)
		}
	}
	if matrices == 0 {
		t.Fatal("no matrices in the file")
	}
}

// TestGGUFModelCarriesChatTemplate: a GGUF file written from a shape with
// a chat template holds it as tokenizer.chat_template, the same text.
func TestGGUFModelCarriesChatTemplate(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "folder")
	if err := Write(src, "tiny-qwen3", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	want, err := chat.SourceFromDir(src)
	if err != nil {
		t.Fatalf("the tiny-qwen3 folder has no chat template: %v", err)
	}
	path := filepath.Join(dir, "tiny-qwen3.gguf")
	if err := WriteGGUFModel(path, "tiny-qwen3", 1, "q8_0"); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, ok, err := f.String("tokenizer.chat_template")
	if err != nil || !ok || got != want {
		t.Errorf("tokenizer.chat_template: %d bytes, ok %v, err %v; want the folder's %d bytes", len(got), ok, err, len(want))
	}
	if name, _, _ := f.String("general.name"); name != "tiny-qwen3" {
		t.Errorf("general.name %q, want the shape's name", name)
	}
}
