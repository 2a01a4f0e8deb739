package engine

import (
	"path/filepath"
	"strings"
)

// NameFromPath is the name people know a model by, from its path alone:
// the Hub repo id of a Hugging Face cache snapshot
// (…/models--Qwen--Qwen2.5-1.5B/snapshots/<hash>/… is Qwen/Qwen2.5-1.5B),
// else the folder's name, or a file's name without its extension. A GGUF
// file's own general.name comes before the file name (Load sets it).
func NameFromPath(path string) string {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(path)), "/")
	for i := len(parts) - 2; i >= 0; i-- {
		rest, ok := strings.CutPrefix(parts[i], "models--")
		if ok && rest != "" && parts[i+1] == "snapshots" {
			return strings.ReplaceAll(rest, "--", "/")
		}
	}
	base := filepath.Base(path)
	if ext := filepath.Ext(base); strings.EqualFold(ext, ".gguf") || strings.EqualFold(ext, ".safetensors") {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}
