package app

import (
	"fmt"
	"os"
	"path/filepath"

	"loupe/assets"
	"loupe/engine/genmodel"
)

// demoModel returns the folder of the model opened when none is chosen:
// the trained demo model embedded in the binary, or, if it cannot be
// extracted, a tiny random-weight model (nonsense, but every panel works).
var demoModel = func() (string, error) {
	if dir, err := assets.DemoModelDir(); err == nil {
		return dir, nil
	}
	return tinyRandomModel()
}

// demoPrompts are the demo model's prompts (the article's sentence first).
var demoPrompts = func() []string { return append([]string(nil), assets.DemoPrompts...) }

// tinyRandomModel writes genmodel's tiny shape once into the user's cache.
func tinyRandomModel() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "loupe", "tiny-random-bf16")
	if _, err := os.Stat(filepath.Join(dir, "config.json")); err == nil {
		return dir, nil
	}
	// Write beside, then rename: a crash never leaves half a model behind.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "tiny-*")
	if err != nil {
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return "", fmt.Errorf("demo model: %w", err)
		}
		if tmp, err = os.MkdirTemp(filepath.Dir(dir), "tiny-*"); err != nil {
			return "", fmt.Errorf("demo model: %w", err)
		}
	}
	if err := genmodel.Write(tmp, "tiny", 1, "bf16"); err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("demo model: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		if _, statErr := os.Stat(filepath.Join(dir, "config.json")); statErr == nil {
			return dir, nil // another Loupe wrote it first
		}
		return "", fmt.Errorf("demo model: %w", err)
	}
	return dir, nil
}
