package app

import (
	"loupe/engine"
)

// loadEngine opens a model folder (or its safetensors file) with the engine.
func loadEngine(path string, progress func(float64, string)) (Backend, error) {
	m, err := engine.Load(path, engine.LoadOptions{Progress: progress})
	if err != nil {
		return nil, err
	}
	return m, nil
}

var _ Backend = (*engine.Model)(nil)
