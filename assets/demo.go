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

// DemoName is the demo model's name where Loupe shows it (the window's
// title, loupe lesson): its folder is named after a hash of its files.
const DemoName = "the demo model (a small Qwen2 trained on public-domain text)"

// DemoPrompt is a prompt for the demo model and a one-line caption of what
// to look at when it runs (the menu shows it beside the prompt).
type DemoPrompt struct{ Text, Caption string }

// DemoExamples are the demo model's menu prompts, each with what to look
// at (layers and heads numbered from 1, as the attention panel does;
// figures from tools/train/captions.py, each checked on its prompt). The
// sentence of the article “The two times of an answer” comes first: the
// model continues it with "purple", fetched by the heads of layer 4. Then
// a colour, a name and an object fetched the same way, a repeated list
// that the same heads copy, and openings of its training text.
var DemoExamples = []DemoPrompt{
	{"My cat is purple. But my friends tell me there is no such thing as a",
		"layer 4: every head but head 5 looks back at “purple” (82–100 %), and the model answers “purple” (67 %)"},
	{"The dragon was golden. Everyone in the village came to see the",
		"the colour: layer 4's heads (all but head 5) rest on “golden”, the answer (99 %)"},
	{"My neighbour is called Martha. Every morning I say hello to",
		"a name: layer 4's heads (all but head 5) fetch “Martha” (87–100 %), the answer (98 %)"},
	{"I lost my keys this morning. I looked in every pocket but I could not find my",
		"an object: layer 4's heads (all but head 5) put all their attention on “keys”; the model answers “keys” (95 %)"},
	{" could Lord hence head could fear nothing know let till about doth could Lord hence head could fear nothing know let till about doth could Lord hence head",
		"a list seen before: layer 4's heads (all but head 5) look partly (19–46 %) at the word after the earlier copy, and the model copies it (96 %)"},
	{"KING RICHARD III:\nNow is the winter of our discontent",
		"Shakespeare, its main training text: speaker headings and verse"},
	{"ROMEO:\nBut soft, what light",
		"try Sampling (temperature 0.8): it reads better than greedy, which loops"},
}

// DemoPrompts are the texts of DemoExamples, in order.
var DemoPrompts = func() []string {
	out := make([]string, len(DemoExamples))
	for i, d := range DemoExamples {
		out[i] = d.Text
	}
	return out
}()

// DemoCaption is the caption of a demo prompt, "" for any other text.
func DemoCaption(prompt string) string {
	for _, d := range DemoExamples {
		if d.Text == prompt {
			return d.Caption
		}
	}
	return ""
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
