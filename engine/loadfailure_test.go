package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The message for a model that did not open names its path once (the
// window's dialog named it three times: its own prefix and Load's errors
// at each level) and keeps the reason.
func TestLoadFailureNamesThePathOnce(t *testing.T) {
	d := t.TempDir()
	cfg := filepath.Join(d, "gpt2")
	os.MkdirAll(cfg, 0o755)
	os.WriteFile(filepath.Join(cfg, "config.json"), []byte(`{"architectures":["GPT2LMHeadModel"],"model_type":"gpt2"}`), 0o644)
	bad := filepath.Join(d, "broken.gguf")
	os.WriteFile(bad, []byte("GGUFxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"), 0o644)
	notes := filepath.Join(d, "notes.txt")
	os.WriteFile(notes, []byte("hello"), 0o644)
	for _, c := range []struct{ path, why string }{
		{cfg, `config.json: unsupported model: model_type "gpt2"`},
		{bad, "bad model file: gguf broken.gguf: GGUF version"},
		{notes, "bad model file: want a model folder"},
		{filepath.Join(d, "missing"), "stat missing: no such file or directory"},
	} {
		_, err := Load(c.path, LoadOptions{})
		if err == nil {
			t.Fatalf("%s loaded", c.path)
		}
		msg := LoadFailure(c.path, err)
		if n := strings.Count(msg, c.path); n != 1 {
			t.Errorf("%q names %s %d times", msg, c.path, n)
		}
		if !strings.HasPrefix(msg, c.path+"\n") || !strings.Contains(msg, c.why) {
			t.Errorf("%q: want the path, then %q", msg, c.why)
		}
		if old := fmt.Sprintf("%s: %v", c.path, err); strings.Count(old, c.path) < 2 && c.path != filepath.Join(d, "missing") {
			t.Errorf("the old message %q named the path once already", old)
		}
	}
}
