package app

import (
	"context"

	"loupe/engine"
)

// loadEngine opens a model folder (or its safetensors file) with the engine
// and warms it up (engine.Model.WarmUp): the first generation the user asks
// for then runs as fast as the later ones.
func loadEngine(path string, progress func(float64, string)) (Backend, error) {
	m, err := engine.Load(path, engine.LoadOptions{Progress: progress})
	if err != nil {
		return nil, err
	}
	if progress != nil {
		progress(1, tr("app.load.warmup", nil))
	}
	_ = m.WarmUp(context.Background()) // best effort: a model that cannot run says so at Generate
	return m, nil
}

var _ Backend = (*engine.Model)(nil)
