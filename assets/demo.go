package assets

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"sync"
)

// demoFS is the demo model folder (a small Qwen2 trained by tools/train on
// public-domain text; see demo/README.md): config.json,
// generation_config.json, tokenizer.json, model.safetensors, README.md.
//
//go:embed demo
var demoFS embed.FS

// DemoFiles returns the embedded demo model folder (file names at its root).
func DemoFiles() fs.FS {
	sub, err := fs.Sub(demoFS, "demo")
	if err != nil { // cannot happen: "demo" is a valid embedded directory
		return demoFS
	}
	return sub
}

// DemoPrompts are prompts the demo model continues in style: openings
// from its training texts (Shakespeare's speaker headings, Poe's prose) and,
// last, a copying probe: a list of words repeated, where a model with
// induction heads predicts the rest of the repetition (see demo/README.md
// for how well this small model does it).
var DemoPrompts = []string{
	"The gold-bug",
	"KING RICHARD III:\nNow is the winter of our discontent",
	"ROMEO:\nBut soft, what light",
	"First Citizen:\nWe are accounted poor citizens,",
	"I had been walking for some time along the beach, when",
	"MENENIUS:\n",
	"Words: moon sword night horse ship crown dog silver queen skull beetle key paper gold. Words: moon sword night horse",
}

var demoDir = sync.OnceValues(extractDemo)

// DemoModelDir extracts the demo model once per content version into
// os.UserCacheDir()/loupe/demo-<hash>/ and returns that folder. The files
// are written to a temporary sibling that is renamed into place, so an
// interrupted extraction never leaves a half-written model behind; a
// complete folder from an earlier run is reused.
func DemoModelDir() (string, error) { return demoDir() }

func extractDemo() (string, error) {
	files, err := demoFileNames()
	if err != nil {
		return "", err
	}
	sum, err := demoHash(files)
	if err != nil {
		return "", err
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir() // no $HOME: still usable, just not kept
	}
	parent := filepath.Join(base, "loupe")
	dir := filepath.Join(parent, "demo-"+sum)
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return dir, nil
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("demo model: cache folder %s: %w", parent, err)
	}
	tmp, err := os.MkdirTemp(parent, ".demo-partial-")
	if err != nil {
		return "", fmt.Errorf("demo model: temporary folder in %s: %w", parent, err)
	}
	if err := writeDemo(tmp, files); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		// Another process may have finished the same extraction first.
		if st, serr := os.Stat(dir); serr == nil && st.IsDir() {
			return dir, nil
		}
		return "", fmt.Errorf("demo model: rename %s to %s: %w", tmp, dir, err)
	}
	return dir, nil
}

// demoFileNames lists the regular files of the embedded folder, sorted.
func demoFileNames() ([]string, error) {
	var names []string
	err := fs.WalkDir(DemoFiles(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			names = append(names, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("demo model: list embedded files: %w", err)
	}
	sort.Strings(names)
	return names, nil
}

// demoHash is the first 12 hex digits of sha256 over (name, NUL, length,
// content) of every file: a new model gets a new cache folder.
func demoHash(files []string) (string, error) {
	h := sha256.New()
	for _, name := range files {
		b, err := fs.ReadFile(DemoFiles(), name)
		if err != nil {
			return "", fmt.Errorf("demo model: read embedded %s: %w", name, err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}

func writeDemo(dir string, files []string) error {
	for _, name := range files {
		b, err := fs.ReadFile(DemoFiles(), name)
		if err != nil {
			return fmt.Errorf("demo model: read embedded %s: %w", name, err)
		}
		dst := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("demo model: create %s: %w", path.Dir(name), err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return fmt.Errorf("demo model: write %s: %w", dst, err)
		}
	}
	return nil
}
