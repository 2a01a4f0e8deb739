package engine

import (
	"sort"
	"strings"

	"loupe/engine/tokenizer"
	"loupe/trace"
)

// modelInfo describes the model for the Model panel: parameter counts by
// part (docs/spec/qwen2.md §5) and what one decode step reads.
func modelInfo(cfg Config, w weights, path, dir string, fileBytes int64) trace.ModelInfo {
	h, V, L := int64(cfg.HiddenSize), int64(cfg.VocabSize), int64(len(cfg.attentionLayers()))
	kvDim := int64(cfg.NumKeyValueHeads * cfg.HeadDim)
	p := architectures[cfg.Architecture].params(cfg)
	info := trace.ModelInfo{
		Name: NameFromPath(dir), Path: path,
		Architecture: cfg.Architecture, ModelType: cfg.ModelType,
		Layers: cfg.NumHiddenLayers, Heads: cfg.NumAttentionHeads, KVHeads: cfg.NumKeyValueHeads,
		HeadDim: cfg.HeadDim, Hidden: cfg.HiddenSize, Intermediate: cfg.IntermediateSize,
		Vocab: cfg.VocabSize, MaxPositions: cfg.MaxPositionEmbeddings,
		TiedEmbeddings: cfg.TieWordEmbeddings, DType: storedDTypes(w), FileBytes: fileBytes,
		ParamsEmbedding: V * h,
		ParamsAttention: p.attention,
		ParamsMLP:       p.mlp,
		ParamsNorm:      p.norm + h, // the layers' norms and the final one
	}
	if !cfg.TieWordEmbeddings {
		info.ParamsOutput = V * h
	}
	info.OutputBytesPerTok = w.output.bytes()
	info.WeightBytesPerTok = decodeWeightBytes(cfg, w)
	// Our KV cache is fp32: 2 (K and V) × L × KV × d × 4 bytes over the L
	// layers with attention. A bf16 cache (the reference's DynamicCache in
	// a bf16 run) is half of this.
	info.KVBytesPerToken = 2 * L * kvDim * 4
	if cfg.Qwen35 != nil {
		info.LayerTypes = append([]string(nil), cfg.Qwen35.LayerTypes...)
		info.ParamsDeltaNet = p.deltaNet
		ln := cfg.Qwen35.Linear
		info.DeltaNetHeads, info.DeltaNetKeyDim, info.DeltaNetValDim = ln.NV, ln.DK, ln.DV
		info.StateBytes = newRecurrentState(&cfg).stateBytes()
	}
	if c := cfg.MoE; c != nil {
		info.Experts, info.ExpertsPerToken = c.Experts, c.TopK
		info.ParamsMLPActive = cfg.mlpParams(c.TopK)
		for i := range w.layers {
			if mw := w.layers[i].moe; mw != nil {
				info.MoELayers++
				info.ExpertBytes = mw.expertBytes(1)
			}
		}
	}
	info.NotUsed = w.notUsed
	return info
}

// decodeWeightBytes is what one decode step reads from the weights: every
// layer matrix (of an MoE layer: the router, the shared expert and k
// experts), the f32 norms and biases, one embedding row and the output head.
func decodeWeightBytes(cfg Config, w weights) int64 {
	var n int64
	for i := range w.layers {
		for _, m := range w.layers[i].matrices() {
			n += m.bytes()
		}
		n += 4 * int64(w.layers[i].vectorFloats())
		if mw := w.layers[i].moe; mw != nil {
			n += mw.expertBytes(cfg.MoE.TopK) // the k chosen experts
		}
	}
	n += 4 * int64(len(w.outNorm))
	n += w.embed.bytes() / int64(max(1, w.embed.rows)) // one row
	return n + w.output.bytes()
}

// storedDTypes names the matrix dtypes in use: "bf16", "f16", "f32",
// a quant's name, or several joined by "+" ("bf16+f32").
func storedDTypes(w weights) string {
	seen := map[string]bool{}
	add := func(m *mat) {
		if m.q != nil {
			seen[strings.ToLower(m.qt.String())] = true
		} else if m.bf != nil {
			seen["bf16"] = true
		} else if m.h != nil {
			seen["f16"] = true
		} else if m.f != nil {
			seen["f32"] = true
		}
	}
	add(&w.embed)
	add(&w.output)
	for i := range w.layers {
		for _, m := range w.layers[i].matrices() {
			add(m)
		}
		if mw := w.layers[i].moe; mw != nil && len(mw.experts) > 0 {
			e := &mw.experts[0]
			add(&e.gate)
			add(&e.up)
			add(&e.down)
		}
	}
	names := make([]string, 0, len(seen))
	for k := range seen {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, "+")
}

// Info describes the loaded model.
func (m *Model) Info() trace.ModelInfo { return m.info }

// Close releases the memory map and the workers. The model must not be
// used afterwards.
func (m *Model) Close() error {
	m.w = weights{}
	m.kCache, m.vCache = nil, nil
	m.buf, m.recur = buffers{}, nil
	if m.pool != nil {
		m.pool.Close()
	}
	if m.done == nil {
		return nil
	}
	done := m.done
	m.done = nil
	return done()
}

// Tokenizer returns the model's tokenizer (nil for a model built in memory).
func (m *Model) Tokenizer() *tokenizer.Tokenizer { return m.tok }

// Encode tokenizes text; special tokens written in the text are recognised.
func (m *Model) Encode(text string) []int {
	if m.tok == nil {
		return nil
	}
	return m.tok.Encode(text)
}

// TokenText is the decoded text of one token: its bytes as UTF-8, a
// partial character shown as U+FFFD; special tokens as their content.
func (m *Model) TokenText(id int) string {
	if m.tok == nil {
		return ""
	}
	return m.tok.Decode([]int{id})
}

// EOS returns the stop ids (generation_config.json, else config.json).
func (m *Model) EOS() []int { return append([]int(nil), m.eos...) }
