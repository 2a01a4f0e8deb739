package engine

import (
	"path/filepath"
	"strings"
)

// LoadFailure is what a person reads when Load refused path: the path
// once, on its own line, then why. Load's errors repeat the path at each
// level ("load P: bad model file: gguf P/x.gguf: …", "load P:
// P/config.json: config.json: …"); here the first is dropped, the others
// cut to the file's own name, and a step said twice in a row is said once.
func LoadFailure(path string, err error) string {
	if err == nil {
		return path
	}
	why := strings.TrimPrefix(err.Error(), "load "+path+": ")
	if path != "" {
		why = strings.ReplaceAll(why, strings.TrimSuffix(path, string(filepath.Separator))+string(filepath.Separator), "")
		why = strings.ReplaceAll(why, path, filepath.Base(path))
	}
	steps := strings.Split(why, ": ")
	kept := steps[:1]
	for _, s := range steps[1:] {
		if s != kept[len(kept)-1] {
			kept = append(kept, s)
		}
	}
	return path + "\n" + strings.Join(kept, ": ")
}
