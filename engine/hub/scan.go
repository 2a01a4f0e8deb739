package hub

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
)

// Local is a model found on disk.
type Local struct {
	Name     string `json:"name"`     // "Qwen/Qwen2.5-1.5B", or a GGUF file's name
	Path     string `json:"path"`     // the snapshot folder, or the .gguf file
	Source   string `json:"source"`   // "Hugging Face cache", "LM Studio", "llama.cpp", …
	Format   string `json:"format"`   // "safetensors" or "gguf"
	Revision string `json:"revision"` // refs pointing at this snapshot ("main"), else the short commit
	Bytes    int64  `json:"bytes"`    // on-disk size of its files (symlinks followed)
	CanOpen  bool   `json:"can_open"`
	Why      string `json:"why"` // why not, when CanOpen is false ("" when it opens)
}

// Place is a folder to look in for models.
type Place struct {
	Source string // shown to the user
	Dir    string
	HF     bool // a Hugging Face hub cache (models--ORG--NAME folders); else GGUF files anywhere below
}

// Places is where models usually are on this machine: the Hugging Face
// cache, then the folders of LM Studio, llama.cpp and GPT4All.
func Places() []Place {
	home := homeDir()
	ps := []Place{{Source: "Hugging Face cache", Dir: CacheDir(), HF: true}}
	add := func(src string, dirs ...string) {
		for _, d := range dirs {
			if d != "" {
				ps = append(ps, Place{Source: src, Dir: d})
			}
		}
	}
	add("LM Studio", filepath.Join(home, ".lmstudio", "models"), filepath.Join(home, ".cache", "lm-studio", "models"))
	if d := os.Getenv("LLAMA_CACHE"); d != "" {
		add("llama.cpp", expandHome(d))
	} else {
		add("llama.cpp", llamaCppCache(home))
	}
	add("GPT4All", gpt4allDir(home))
	return ps
}

// llamaCppCache is where `llama-cli -hf` keeps its downloads.
func llamaCppCache(home string) string {
	switch runtime.GOOS {
	case "windows":
		if d := os.Getenv("LOCALAPPDATA"); d != "" {
			return filepath.Join(d, "llama.cpp")
		}
	case "darwin":
		return filepath.Join(home, "Library", "Caches", "llama.cpp")
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "llama.cpp")
	}
	return filepath.Join(home, ".cache", "llama.cpp")
}

func gpt4allDir(home string) string {
	switch runtime.GOOS {
	case "windows":
		if d := os.Getenv("LOCALAPPDATA"); d != "" {
			return filepath.Join(d, "nomic.ai", "GPT4All")
		}
		return ""
	case "darwin":
		return filepath.Join(home, "Library", "Application Support", "nomic.ai", "GPT4All")
	}
	return filepath.Join(home, ".local", "share", "nomic.ai", "GPT4All")
}

// Scan lists the models in places: those Loupe can open first, then by
// name. Folders that do not exist are skipped; nothing is written.
func Scan(places []Place) []Local {
	var out []Local
	seen := map[string]bool{}
	for _, p := range places {
		var found []Local
		if p.HF {
			found = scanHFCache(p)
		} else {
			found = scanGGUF(p.Source, p.Dir, 6)
		}
		for _, m := range found {
			if !seen[m.Path] {
				seen[m.Path] = true
				out = append(out, m)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].CanOpen != out[j].CanOpen {
			return out[i].CanOpen
		}
		return strings.ToLower(out[i].Name) < strings.ToLower(out[j].Name)
	})
	return out
}

// scanHFCache lists every snapshot of every model repo in a hub cache.
func scanHFCache(p Place) []Local {
	entries, err := os.ReadDir(p.Dir)
	if err != nil {
		return nil
	}
	var out []Local
	for _, e := range entries {
		id, ok := repoIDFromFolder(e.Name())
		if !ok || !e.IsDir() {
			continue
		}
		repo := Repo{Cache: p.Dir, ID: id}
		snaps, err := os.ReadDir(filepath.Join(repo.Dir(), "snapshots"))
		if err != nil {
			continue
		}
		names := refNames(repo)
		for _, s := range snaps {
			if s.IsDir() {
				out = append(out, snapshotModels(p.Source, repo, s.Name(), names[s.Name()])...)
			}
		}
	}
	return out
}

// refNames maps commit → the refs pointing at it ("main", "v1.0").
func refNames(r Repo) map[string]string {
	out := map[string]string{}
	root := filepath.Join(r.Dir(), "refs")
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		name, _ := filepath.Rel(root, path)
		if c := r.ReadRef(filepath.ToSlash(name)); c != "" {
			if out[c] != "" {
				out[c] += ", "
			}
			out[c] += filepath.ToSlash(name)
		}
		return nil
	})
	return out
}

// snapshotModels is one snapshot: a safetensors model when it has a
// config.json, and each GGUF model file in it.
func snapshotModels(source string, r Repo, commit, refs string) []Local {
	dir := r.SnapshotDir(commit)
	rev := refs
	if rev == "" {
		rev = commit[:min(len(commit), 12)]
	}
	var out []Local
	if _, err := os.Lstat(filepath.Join(dir, "config.json")); err == nil {
		m := Local{Name: r.ID, Path: dir, Source: source, Format: "safetensors", Revision: rev, Bytes: treeBytes(dir)}
		m.CanOpen, m.Why = CheckFolder(dir)
		out = append(out, m)
	}
	for _, g := range scanGGUF(source, dir, 3) {
		g.Name = r.ID + "/" + g.Name
		g.Revision = rev
		out = append(out, g)
	}
	return out
}

// treeBytes sums the sizes of the files below dir, following the
// snapshot's symlinks to their blobs.
func treeBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
				n += st.Size()
			}
		}
		return nil
	})
	return n
}

// shardPattern is a split GGUF file's part: NAME-00001-of-00003.gguf.
var shardPattern = regexp.MustCompile(`-(\d{5})-of-(\d{5})\.gguf$`)

// scanGGUF lists the .gguf files below dir, at most depth folders down;
// a split model is listed once, by its first part, with all parts' size.
func scanGGUF(source, dir string, depth int) []Local {
	var out []Local
	parts := map[string]int{} // first part's path → index in out
	root := filepath.Clean(dir)
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if path != root && (strings.Count(rel, string(filepath.Separator)) >= depth || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.EqualFold(filepath.Ext(path), ".gguf") {
			return nil
		}
		st, err := os.Stat(path)
		if err != nil || !st.Mode().IsRegular() {
			return nil
		}
		if m := shardPattern.FindStringSubmatch(path); m != nil && m[1] != "00001" {
			first := strings.TrimSuffix(path, m[0]) + "-00001-of-" + m[2] + ".gguf"
			if i, ok := parts[first]; ok {
				out[i].Bytes += st.Size()
			}
			return nil
		}
		g := Local{Name: filepath.ToSlash(rel), Path: path, Source: source, Format: "gguf", Bytes: st.Size()}
		g.CanOpen, g.Why = CheckGGUFFile(path)
		parts[path] = len(out)
		out = append(out, g)
		return nil
	})
	return out
}
