package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"loupe/engine/gguf"
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

// configRules is implemented by an architecture whose config.json differs
// from Qwen2Config's: defaults of its own (Qwen3's head_dim 128), keys of
// its own (an MoE block's), or settings it refuses (attention_bias). parseHF
// calls it after the shared fields are read, before head_dim is resolved.
type configRules interface {
	configRules(r *rawConfig, c *Config) error
}

// configParser is implemented by an architecture whose config.json has a
// layout of its own (Qwen3.5: a vision-language wrapper with a nested
// text_config); ParseConfig hands it the whole file.
type configParser interface {
	parseConfig(data []byte) (Config, error)
}

// ggufRules is implemented by an architecture whose GGUF metadata has keys
// of its own ({arch}.expert_count, …); ggufConfig calls it after the
// shared keys are read.
type ggufRules interface {
	ggufConfig(r *ggufReader, c *Config) error
}

// ggufPartialRope is implemented by an architecture whose GGUF files may
// rotate fewer dims than head_dim (rope.dimension_count < key_length:
// Qwen3.5's 64 of 256); others refuse such a file.
type ggufPartialRope interface {
	ggufPartialRope()
}

// ggufMetaQK is implemented by an architecture whose GGUF files keep the Q
// and K rows of each head in Meta's interleaved order, as
// convert_hf_to_gguf.py permutes them for llama only (docs/spec/llama.md §3).
type ggufMetaQK interface {
	ggufMetaQK()
}

// paramSplit counts the parameters of the decoder layers by part.
type paramSplit struct{ attention, deltaNet, mlp, norm int64 }

// architectures maps config.json's architectures[0] to its forward pass;
// modelTypes maps model_type to the same names, for configs that omit
// architectures.
// ggufArchs maps GGUF's general.architecture to the same names.
var (
	architectures = map[string]architecture{}
	modelTypes    = map[string]string{}
	ggufArchs     = map[string]string{}
)

// register adds an architecture; each architecture's file calls it from
// init.
func register(name, modelType string, a architecture) {
	architectures[name] = a
	modelTypes[modelType] = name
}

// registerGGUF lets GGUF files whose general.architecture is ggufName
// load as the registered architecture name.
func registerGGUF(ggufName, name string) {
	ggufArchs[ggufName] = name
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

// SupportedFiles says what Loupe opens, from the registered architectures
// and the GGUF tensor types it reads: the sentence every failed load ends
// with, so that it names each family the moment its file registers it.
func SupportedFiles() string {
	return "Expected either a Hugging Face folder with config.json (architectures " + knownArchitectures() + "), " +
		"model.safetensors (or model-0000x-of-0000y.safetensors) in bf16, f16 or f32, and tokenizer.json — " +
		"or the model.safetensors file itself; " +
		"or a GGUF file (.gguf, general.architecture " + knownGGUFArchs() + "; tensors in " + gguf.SupportedTypes + ")."
}

// SupportedNames are the lists SupportedFiles names, for a caller that
// says it in another language: the config.json architectures, the GGUF
// architectures and the GGUF tensor types.
func SupportedNames() (archs, ggufArchs, types string) {
	return knownArchitectures(), knownGGUFArchs(), gguf.SupportedTypes
}

// knownModelTypes lists the registered model_type values, quoted.
func knownModelTypes() string { return quotedKeys(modelTypes) }

// knownGGUFArchs lists the GGUF architectures that load, quoted.
func knownGGUFArchs() string { return quotedKeys(ggufArchs) }

func quotedKeys(m map[string]string) string {
	names := make([]string, 0, len(m))
	for t := range m {
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
	case pr.counterfactual():
		// Keys and values of a model with heads or experts switched off
		// are not those of the model: neither a later prompt nor Inspect
		// reuses them.
		m.kv.failed()
	default:
		m.kv.wrote(tokens)
	}
	return logits, err
}
