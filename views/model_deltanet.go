package views

import (
	"fmt"
	"strings"

	"loupe/format"
	"loupe/trace"
	"loupe/trace/stats"
)

// hybridRows rewrites the Model panel's rows for a hybrid model (Qwen3.5):
// which layers are which, what is cached (a KV cache for the attention
// layers only, plus a fixed state that does not grow), the output head's
// share of the parameters, and what the checkpoint holds that is not run.
func hybridRows(rows [][2]string, m trace.ModelInfo, count format.Numbering) [][2]string {
	full, first := 0, -1
	for l, t := range m.LayerTypes {
		if t == "full_attention" {
			full++
			if first < 0 {
				first = l
			}
		}
	}
	linear := len(m.LayerTypes) - full
	kv := float64(m.KVBytesPerToken)
	head, total := stats.OutputHead(m) // tied: the embedding table is the head
	for i, r := range rows {
		switch r[0] {
		case "Shape":
			// The first attention layer is named as the grid names it
			// (View › Count): "layer 4" counting from 1, "layer 3" from 0.
			rows[i][1] = fmt.Sprintf("%d layers: %d Gated DeltaNet (%d heads, state %d × %d each) and %d gated attention (%d query heads · %d K/V heads · head dim %d, from %s every %d)",
				m.Layers, linear, m.DeltaNetHeads, m.DeltaNetKeyDim, m.DeltaNetValDim, full, m.Heads, m.KVHeads, m.HeadDim, count.Layer(first), max(1, m.Layers/max(1, full)))
		case "KV cache":
			rows[i][1] = fmt.Sprintf("%s per token for the %d attention layers (fp32; %s in bf16) · %s at 4,096 tokens · %s at 32,000 tokens — plus a fixed %s of DeltaNet state (recurrent + conv) that does not grow with the context",
				nums().Bytes(kv), full, nums().Bytes(kv/2), nums().Bytes(kv*4096), nums().Bytes(kv*32000), nums().Bytes(float64(m.StateBytes)))
		}
	}
	rows = append(rows, [2]string{"Output head", fmt.Sprintf("%s of %s parameters (%s)", nums().Count(head), nums().Count(total), nums().Percent(float64(head)/float64(max(1, total))))})
	if len(m.NotUsed) > 0 {
		rows = append(rows, [2]string{"Not used", strings.Join(m.NotUsed, ", ")})
	}
	return rows
}
