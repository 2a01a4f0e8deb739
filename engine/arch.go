package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// An architecture is one model family's forward pass, in a file of its
// own that reads top to bottom like its paper (qwen2.go, …), written with
// the shared blocks of blocks.go, attention.go and rope.go. engine/ARCH.md
// says how to add one.
type architecture interface {
	// loadLayers views the tensors of every decoder layer (the embedding,
	// final norm and output head are loaded by loadWeights for all).
	loadLayers(ld *loader, cfg Config) []layerWeights

	// forward runs tokens at positions pos0…pos0+T-1 and returns the
	// logits [rows, V] of the last position (rows = 1) or, when
	// pr.allLogits, of every position (rows = T). Keys and values of the
	// T tokens join the KV cache. It fails only when ctx is cancelled
	// (checked between layers).
	forward(ctx context.Context, m *Model, tokens []int, pos0 int, pr *probes) ([]float32, error)

	// params splits the parameter count by part for the Model panel.
	params(cfg Config) paramSplit
}

// finalNormLoader is implemented by architectures that store the final
// norm differently from Qwen2 (Qwen3.5: zero-centred, scale 1 + w).
type finalNormLoader interface {
	loadFinalNorm(ld *loader, cfg Config) []float32
}

// paramSplit counts the parameters of the decoder layers by part.
type paramSplit struct{ attention, deltaNet, mlp, norm int64 }

// architectures maps config.json's architectures[0] to its forward pass;
// modelTypes maps model_type to the same names, for configs that omit
// architectures.
var (
	architectures = map[string]architecture{}
	modelTypes    = map[string]string{}
)

// register adds an architecture; each architecture's file calls it from
// init.
func register(name, modelType string, a architecture) {
	architectures[name] = a
	modelTypes[modelType] = name
}

// knownArchitectures lists the registered names, quoted, for messages.
func knownArchitectures() string {
	names := make([]string, 0, len(architectures))
	for n := range architectures {
		names = append(names, fmt.Sprintf("%q", n))
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// knownModelTypes lists the registered model_type values, quoted.
func knownModelTypes() string {
	names := make([]string, 0, len(modelTypes))
	for t := range modelTypes {
		names = append(names, fmt.Sprintf("%q", t))
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// forward runs the model's architecture (see architecture.forward).
// It keeps m.kv, the record of which tokens the cache holds, up to date.
func (m *Model) forward(ctx context.Context, tokens []int, pos0 int, pr *probes) ([]float32, error) {
	m.kv.overwrite(pos0)
	logits, err := m.arch.forward(ctx, m, tokens, pos0, pr)
	switch {
	case err != nil:
		m.kv.failed()
	case pr != nil && len(pr.ablate) > 0:
		// Keys and values of a model with heads switched off are not
		// those of the model: neither a later prompt nor Inspect reuses them.
		m.kv.failed()
	default:
		m.kv.wrote(tokens)
	}
	return logits, err
}
