// Package genmodel writes random-weight Qwen2, Llama, Qwen3, Qwen3.5 and
// mixture-of-experts (OLMoE, Qwen3-MoE, Qwen3.5-MoE) model folders (config.json,
// generation_config.json, model.safetensors, tokenizer.json) with the exact
// shapes of real models, so the engine can be tested and benchmarked without
// downloading weights, and as GGUF files through loupe/engine/convert.
package genmodel

import (
	"sort"
	"strconv"
	"strings"
)

// Shape holds the config.json fields that fix a Qwen2 model's tensors
// (docs/spec/qwen2.md §1, §5).
type Shape struct {
	Family                string // "qwen2" (or ""), "llama", "qwen3" (qwen3.go), "qwen3_5" (qwen35.go), MoE ones (moe.go)
	HiddenSize            int    // h
	IntermediateSize      int    // I
	NumHiddenLayers       int    // L
	NumAttentionHeads     int    // H
	NumKeyValueHeads      int    // KV
	VocabSize             int    // V
	MaxPositionEmbeddings int
	MaxWindowLayers       int // informational: sliding window is off
	TieWordEmbeddings     bool
	ExplicitHeadDim       int // head_dim written to config.json (Qwen3); 0: h / H

	Hybrid *HybridShape // Qwen3.5 (Family "qwen3_5", "qwen3_5_moe"): DeltaNet layers, qwen35.go
	MoE    *MoEShape    // mixture of experts (Family "olmoe", "qwen3_moe", "qwen3_5_moe"): moe.go
}

// HeadDim is d: ExplicitHeadDim, else h / H (Qwen2 configs carry no head_dim).
func (s Shape) HeadDim() int {
	if s.ExplicitHeadDim > 0 {
		return s.ExplicitHeadDim
	}
	return s.HiddenSize / s.NumAttentionHeads
}

var shapes = map[string]Shape{
	// tiny: the real vocabulary (so the Qwen tokenizer's ids all exist),
	// everything else small enough for unit tests.
	"tiny": {HiddenSize: 64, IntermediateSize: 128, NumHiddenLayers: 2, NumAttentionHeads: 4,
		NumKeyValueHeads: 2, VocabSize: 151936, MaxPositionEmbeddings: 4096, MaxWindowLayers: 2,
		TieWordEmbeddings: true},
	// The base models' config.json values, docs/spec/qwen2.md §5.
	"qwen2.5-0.5b": {HiddenSize: 896, IntermediateSize: 4864, NumHiddenLayers: 24, NumAttentionHeads: 14,
		NumKeyValueHeads: 2, VocabSize: 151936, MaxPositionEmbeddings: 32768, MaxWindowLayers: 24,
		TieWordEmbeddings: true},
	// tiny-llama: a LlamaForCausalLM (no biases, untied head, docs/spec/llama.md)
	// with the Qwen vocabulary; 256 columns so that GGUF Q4_K blocks fit.
	"tiny-llama": {Family: "llama", HiddenSize: 256, IntermediateSize: 768, NumHiddenLayers: 2, NumAttentionHeads: 4,
		NumKeyValueHeads: 2, VocabSize: 151936, MaxPositionEmbeddings: 4096, MaxWindowLayers: 2},
	"qwen2.5-1.5b": {HiddenSize: 1536, IntermediateSize: 8960, NumHiddenLayers: 28, NumAttentionHeads: 12,
		NumKeyValueHeads: 2, VocabSize: 151936, MaxPositionEmbeddings: 32768, MaxWindowLayers: 28,
		TieWordEmbeddings: true},
	// narrow-1.5b: Qwen2.5-1.5B's grid (28 layers × 12 heads, 2 K/V heads,
	// the real vocabulary and context) on a 192-wide stream: the window's
	// layouts at that shape in 80 MB instead of 3.1 GB.
	"narrow-1.5b": {HiddenSize: 192, IntermediateSize: 512, NumHiddenLayers: 28, NumAttentionHeads: 12,
		NumKeyValueHeads: 2, VocabSize: 151936, MaxPositionEmbeddings: 32768, MaxWindowLayers: 28,
		TieWordEmbeddings: true},
}

// Shapes lists the shape names Write accepts, sorted.
func Shapes() []string {
	names := make([]string, 0, len(shapes))
	for n := range shapes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Lookup returns the named shape.
func Lookup(name string) (Shape, bool) {
	s, ok := shapes[name]
	return s, ok
}

// TensorSpec is one tensor of a model: its safetensors name and shape, and
// how its random values are drawn.
type TensorSpec struct {
	Name  string
	Shape []int
	init  initRule
}

// Tensors lists every tensor docs/spec/qwen2.md §2 names for s, in layer order:
// 2 + 12·L of them, plus lm_head.weight when the embeddings are untied.
func (s Shape) Tensors() []TensorSpec {
	switch s.Family {
	case "qwen3":
		return s.qwen3Tensors()
	case "qwen3_5":
		return s.qwen35Tensors()
	case "olmoe":
		return s.olmoeTensors()
	case "qwen3_moe":
		return s.withMoE(s.qwen3Tensors())
	case "qwen3_5_moe":
		return s.withMoE(s.qwen35Tensors())
	}
	h, d, I, V := s.HiddenSize, s.HeadDim(), s.IntermediateSize, s.VocabSize
	qd, kvd := s.NumAttentionHeads*d, s.NumKeyValueHeads*d
	out := []TensorSpec{{"model.embed_tokens.weight", []int{V, h}, embedding(h)}}
	for i := range s.NumHiddenLayers {
		p := "model.layers." + strconv.Itoa(i) + "."
		out = append(out,
			TensorSpec{p + "input_layernorm.weight", []int{h}, norm()},
			TensorSpec{p + "self_attn.q_proj.weight", []int{qd, h}, matrix(h)},
			TensorSpec{p + "self_attn.q_proj.bias", []int{qd}, bias()},
			TensorSpec{p + "self_attn.k_proj.weight", []int{kvd, h}, matrix(h)},
			TensorSpec{p + "self_attn.k_proj.bias", []int{kvd}, bias()},
			TensorSpec{p + "self_attn.v_proj.weight", []int{kvd, h}, matrix(h)},
			TensorSpec{p + "self_attn.v_proj.bias", []int{kvd}, bias()},
			TensorSpec{p + "self_attn.o_proj.weight", []int{h, qd}, matrix(qd)},
			TensorSpec{p + "post_attention_layernorm.weight", []int{h}, norm()},
			TensorSpec{p + "mlp.gate_proj.weight", []int{I, h}, matrix(h)},
			TensorSpec{p + "mlp.up_proj.weight", []int{I, h}, matrix(h)},
			TensorSpec{p + "mlp.down_proj.weight", []int{h, I}, matrix(I)},
		)
	}
	out = append(out, TensorSpec{"model.norm.weight", []int{h}, norm()})
	if !s.TieWordEmbeddings {
		out = append(out, TensorSpec{"lm_head.weight", []int{V, h}, embedding(h)})
	}
	if s.Family == "llama" { // Qwen2's tensors without the q/k/v biases
		kept := out[:0]
		for _, t := range out {
			if !strings.HasSuffix(t.Name, ".bias") {
				kept = append(kept, t)
			}
		}
		out = kept
	}
	return out
}
