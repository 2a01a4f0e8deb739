package hub

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"loupe/engine"
	"loupe/engine/gguf"
	"loupe/engine/safetensors"
)

// CheckFolder says whether the engine can open a model folder and, if not,
// why, without loading any weights: config.json must parse with the
// engine's own ParseConfig (so every architecture the engine learns is
// accepted here with no list to keep in step), tokenizer.json must be
// there, and so must every safetensors file the index names.
func CheckFolder(dir string) (ok bool, why string) {
	data, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		return false, missing("config.json", err)
	}
	if _, err := engine.ParseConfig(data); err != nil {
		return false, strings.TrimPrefix(err.Error(), "config.json: ")
	}
	if _, err := os.Stat(filepath.Join(dir, "tokenizer.json")); err != nil {
		return false, missing("tokenizer.json", err)
	}
	shards, err := weightFiles(dir)
	if err != nil {
		return false, err.Error()
	}
	for _, s := range shards {
		if _, err := os.Stat(filepath.Join(dir, s)); err != nil {
			return false, missing(s, err)
		}
	}
	for _, s := range shards {
		if why := checkShard(dir, s); why != "" {
			return false, why
		}
	}
	return true, ""
}

// checkShard opens one safetensors file as the loader does (its header,
// dtypes and every tensor's bytes within the file) without reading the
// weights: a download cut short is the usual case. Shapes against the
// config are the loader's to check.
func checkShard(dir, name string) string {
	set, err := safetensors.Open(filepath.Join(dir, name))
	if err != nil {
		return strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "") // the listing shows the folder
	}
	set.Close()
	return ""
}

// missing words a failed Stat: a dangling symlink in a snapshot is a
// download that never finished.
func missing(name string, err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "no " + name + " (an unfinished download? pull it again)"
	}
	return name + ": " + err.Error()
}

// weightFiles lists the safetensors files a folder's model needs:
// the shards named by model.safetensors.index.json, or model.safetensors,
// or the only *.safetensors there is.
func weightFiles(dir string) ([]string, error) {
	if data, err := os.ReadFile(filepath.Join(dir, "model.safetensors.index.json")); err == nil {
		var idx struct {
			WeightMap map[string]string `json:"weight_map"`
		}
		if err := json.Unmarshal(data, &idx); err != nil || len(idx.WeightMap) == 0 {
			return nil, fmt.Errorf("model.safetensors.index.json: no weight_map")
		}
		return uniqueSorted(idx.WeightMap), nil
	}
	if _, err := os.Lstat(filepath.Join(dir, "model.safetensors")); err == nil {
		return []string{"model.safetensors"}, nil
	}
	found, _ := filepath.Glob(filepath.Join(dir, "*.safetensors"))
	if len(found) > 0 {
		return []string{filepath.Base(found[0])}, nil
	}
	if bins, _ := filepath.Glob(filepath.Join(dir, "*.bin")); len(bins) > 0 {
		return nil, errors.New("weights are PyTorch .bin files; Loupe reads .safetensors")
	}
	return nil, errors.New("no .safetensors weights")
}

func uniqueSorted(m map[string]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range m {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// CheckGGUFFile says whether a .gguf file can be opened. The engine's
// GGUF reader checks the file and names its architecture; the engine has
// no GGUF model loader yet, so the answer is no, with that reason.
func CheckGGUFFile(path string) (ok bool, why string) {
	f, err := gguf.Open(path)
	if err != nil {
		return false, "not a valid GGUF file: " + err.Error()
	}
	defer f.Close()
	// hyper-parameters and vocabulary, as Load checks them (not the weights)
	if _, err := engine.LoadTokenizer(path); err != nil {
		return false, err.Error()
	}
	return true, ""
}
