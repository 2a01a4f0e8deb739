package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"loupe/engine/genmodel"
)

// A model is named as people know it in the title, the recent models and
// a saved session: a Hugging Face cache snapshot by its repo id (not its
// hash folder), a GGUF file by its general.name (not its file name), any
// other folder by its name; its path is the session's second field.
func TestModelsNamedAsPeopleKnowThem(t *testing.T) {
	root := t.TempDir()
	snapshot := filepath.Join(root, "hub", "models--Org--Tiny-Chat", "snapshots", "0123abcd")
	if err := genmodel.Write(snapshot, "tiny", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	gguf := filepath.Join(root, "weights-q8.gguf") // written from a folder named "tiny"
	if err := genmodel.WriteGGUFModel(gguf, "tiny", 1, "q8_0"); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(root, "my-model")
	if err := genmodel.Write(folder, "tiny", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, name, where string }{
		{snapshot, "Org/Tiny-Chat", "(Hugging Face cache)"},
		{gguf, "tiny", "(in " + root + ")"},
		{folder, "my-model", "(in " + root + ")"},
	} {
		h := newHarnessWith(t, Options{Model: c.path}, loadEngine)
		u := h.u
		if got := u.win.Title(); got != "Loupe — "+c.name {
			t.Errorf("%s: title %q", c.path, got)
		}
		h.generate("the cat", 2)
		s, err := u.sessionFile.session()
		if err != nil {
			t.Fatal(err)
		}
		if s.Model.Name != c.name || s.Model.Path != c.path {
			t.Errorf("session names %q at %q, want %q at %q", s.Model.Name, s.Model.Path, c.name, c.path)
		}
		p := u.app.Preferences()
		recent := p.StringList(prefRecentModels)
		if len(recent) == 0 {
			t.Fatalf("%s: no recent model", c.path)
		}
		if got := recentLabel(recent[0], p.String(prefModelName+recent[0])); got != c.name+"  "+c.where {
			t.Errorf("recent model label %q, want %q", got, c.name+"  "+c.where)
		}
		u.backend.Close()
	}
	if got := recentLabel("/m/models--Qwen--Qwen2.5-1.5B/snapshots/abc123", ""); !strings.HasPrefix(got, "Qwen/Qwen2.5-1.5B  (") {
		t.Errorf("a recent model without a remembered name: %q", got)
	}
	if home, err := os.UserHomeDir(); err == nil && home != "/" {
		if got := recentLabel(filepath.Join(home, "models", "q"), ""); got != "q  (in "+filepath.Join("~", "models")+")" {
			t.Errorf("a model under the home folder: %q", got)
		}
	}
}
