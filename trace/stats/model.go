package stats

import (
	"math"

	"loupe/trace"
)

// Part is one group of the model's parameters and its share of all.
type Part struct {
	Name   string
	Params int64
	Of     float64 // share of all parameters, 0..1
}

// TotalParams sums every parameter group.
func TotalParams(m trace.ModelInfo) int64 {
	return m.ParamsEmbedding + m.ParamsAttention + m.ParamsDeltaNet + m.ParamsMLP + m.ParamsNorm + m.ParamsOutput
}

// ActiveParams is what one token reads of TotalParams: all of it for a
// dense model; for a mixture of experts the MLP counts only the router,
// the k chosen experts and the shared expert of each layer (the embedding
// and output head count whole, as model cards count them).
func ActiveParams(m trace.ModelInfo) int64 {
	if m.Experts == 0 {
		return TotalParams(m)
	}
	return TotalParams(m) - m.ParamsMLP + m.ParamsMLPActive
}

// ParamParts are the six parameter groups in the order the panels list
// them — embedding, attention, Gated DeltaNet, MLP, norms, output head —
// each with its share of TotalParams (0 when there are none), empty
// groups included.
func ParamParts(m trace.ModelInfo) []Part {
	parts := []Part{{"embedding", m.ParamsEmbedding, 0}, {"attention", m.ParamsAttention, 0},
		{"Gated DeltaNet", m.ParamsDeltaNet, 0}, {"MLP", m.ParamsMLP, 0}, {"norms", m.ParamsNorm, 0}, {"output head", m.ParamsOutput, 0}}
	if total := TotalParams(m); total > 0 {
		for i := range parts {
			parts[i].Of = float64(parts[i].Params) / float64(total)
		}
	}
	return parts
}

// ParamSplit is ParamParts without the empty groups (a tied output head,
// a model without Gated DeltaNet).
func ParamSplit(m trace.ModelInfo) []Part {
	var out []Part
	for _, p := range ParamParts(m) {
		if p.Params > 0 {
			out = append(out, p)
		}
	}
	return out
}

// OutputHead is the output head's parameters and all the parameters; with
// tied embeddings (no head of its own) the head is the embedding table.
func OutputHead(m trace.ModelInfo) (head, total int64) {
	head = m.ParamsOutput
	if m.TiedEmbeddings || head == 0 {
		head = m.ParamsEmbedding
	}
	return head, TotalParams(m)
}

// OutputReadShare is what the output head weighs in one decode step: its
// parameters, all the parameters, and its share of the bytes a step reads
// (the article's "233 M of 1.5 B, 15 %"); the share of the parameters
// when the bytes are unknown, NaN when there are no parameters either.
func OutputReadShare(m trace.ModelInfo) (head, total int64, share float64) {
	head, total = OutputHead(m)
	share = math.NaN()
	if total > 0 {
		share = float64(head) / float64(total)
	}
	if m.WeightBytesPerTok > 0 && m.OutputBytesPerTok > 0 {
		share = float64(m.OutputBytesPerTok) / float64(m.WeightBytesPerTok)
	}
	return head, total, share
}

// KVSizes are the KV cache's sizes for a model: the numbers one token adds
// (keys and values of every layer with attention and every KV head), its
// bytes in this engine's fp32 cache and in a bf16 cache (the article's).
type KVSizes struct {
	Numbers           int64
	BytesF32, BytesBF int64
}

// KVSizesOf reads them from the model's description: the engine's
// KVBytesPerToken counts only the layers with attention (a hybrid's Gated
// DeltaNet layers keep no cache); without it, 2 · layers · kv_heads ·
// head_dim (14,336 for Qwen2.5-1.5B).
func KVSizesOf(m trace.ModelInfo) KVSizes {
	n := m.KVBytesPerToken / 4 // the engine's cache is fp32
	if n == 0 {
		n = 2 * int64(m.Layers) * int64(m.KVHeads) * int64(m.HeadDim)
	}
	return KVSizes{Numbers: n, BytesF32: 4 * n, BytesBF: 2 * n}
}
