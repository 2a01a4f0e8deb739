package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"loupe/engine/safetensors"
)

func TestGenModelWritesTiny(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tiny")
	var out, errb bytes.Buffer
	code := Main([]string{"gen-model", "--shape", "tiny", "--seed", "7", "--out", dir}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "wrote "+dir) {
		t.Errorf("stdout = %q", out.String())
	}
	for _, f := range []string{"config.json", "generation_config.json", "tokenizer.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	s, err := safetensors.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if tn, ok := s.Tensor("model.embed_tokens.weight"); !ok || tn.DType != "BF16" || tn.Shape[0] != 151936 {
		t.Errorf("embed_tokens = %+v", tn)
	}

	// A second run into the same folder is refused and changes nothing.
	before, _ := os.ReadFile(filepath.Join(dir, "model.safetensors"))
	errb.Reset()
	if code := Main([]string{"gen-model", "--seed", "8", "--out", dir}, &out, &errb); code != 1 {
		t.Errorf("second run: exit %d, want 1", code)
	}
	if !strings.Contains(errb.String(), "refusing to overwrite") {
		t.Errorf("stderr = %q", errb.String())
	}
	after, _ := os.ReadFile(filepath.Join(dir, "model.safetensors"))
	if !bytes.Equal(before, after) {
		t.Error("existing model changed")
	}
}

func TestGenModelUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"gen-model"},
		{"gen-model", "--out", dir, "--shape", "qwen9"},
		{"gen-model", "--out", dir, "--dtype", "f16"},
		{"gen-model", "--out", dir, "--seed", "-1"},
		{"gen-model", "--out", dir, "extra"},
		{"gen-model", "--out", dir, "--quant", "q8_0"},                                // a GGUF flag for safetensors
		{"gen-model", "--out", dir + "/m.gguf", "--format", "gguf", "--dtype", "f32"}, // and the other way round
		{"gen-model", "--bogus"},
	} {
		var out, errb bytes.Buffer
		if code := Main(args, &out, &errb); code != 2 || errb.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, errb.String())
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("usage errors wrote files: %v", entries)
	}
}
