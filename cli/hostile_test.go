package cli

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileModelFolders: folders a user might download that are broken
// or built to hurt — each must end `loupe run` with exit 1 and a one-line
// error naming the problem, never a panic, a hang or a huge allocation.
func TestHostileModelFolders(t *testing.T) {
	good := tinyDir(t)
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(good, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	weights, config, tok := read("model.safetensors"), read("config.json"), read("tokenizer.json")
	header := func(h string) []byte { // a safetensors file with header h and 64 bytes of data
		b := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
		return append(append(b, h...), make([]byte, 64)...)
	}
	cases := []struct {
		name, file string
		data       []byte
		want       string
	}{
		{"truncated weights", "model.safetensors", weights[:len(weights)/2], "safetensors"},
		{"header past the end", "model.safetensors", binary.LittleEndian.AppendUint64(nil, 1<<40), "header"},
		{"lying offsets", "model.safetensors", header(`{"model.embed_tokens.weight":{"dtype":"BF16","shape":[4,4],"data_offsets":[0,1000000]}}`), "safetensors"},
		{"overflowing dims", "model.safetensors", header(`{"x":{"dtype":"BF16","shape":[4294967296,4294967296,4294967296],"data_offsets":[0,64]}}`), "safetensors"},
		{"deep JSON header", "model.safetensors", header(strings.Repeat("[", 100000)), "safetensors"},
		{"deep config", "config.json", []byte(strings.Repeat(`{"a":`, 100000)), "config.json"},
		{"huge config sizes", "config.json", []byte(strings.Replace(string(config), `"hidden_size": 64`, `"hidden_size": 99999999999`, 1)), "config.json"},
		{"config not JSON", "config.json", []byte("\xff\xfe garbage"), "config.json"},
		{"huge string in tokenizer", "tokenizer.json", []byte(`{"model":{"type":"BPE","vocab":{"` + strings.Repeat("a", 1<<20) + `":0}}}`), "tokenizer"},
		{"invalid UTF-8 tokenizer", "tokenizer.json", append([]byte{0xff, 0xfe}, tok[:1000]...), "tokenizer"},
		{"truncated tokenizer", "tokenizer.json", tok[:len(tok)/3], "tokenizer"},
		{"empty weights", "model.safetensors", nil, "safetensors"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "m")
			if err := os.CopyFS(dir, os.DirFS(good)); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, tc.file), tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errs := runCLI("--model", dir, "--prompt", "hello", "--max-tokens", "2")
			if code != 1 || out != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 and only an error", code, out, errs)
			}
			if lines := strings.Count(strings.TrimSpace(errs), "\n"); lines > 0 || !strings.Contains(errs, tc.want) {
				t.Fatalf("stderr %q: want one line naming %q", errs, tc.want)
			}
		})
	}
}
