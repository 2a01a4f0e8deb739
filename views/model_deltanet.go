package views

import (
	"strings"

	"loupe/format"
	"loupe/i18n"
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
			rows[i][1] = tr("views.model.hybrid_shape", i18n.Args{"Layers": m.Layers, "Linear": linear, "DNHeads": m.DeltaNetHeads,
				"K": m.DeltaNetKeyDim, "V": m.DeltaNetValDim, "Full": full, "Heads": m.Heads, "KVHeads": m.KVHeads, "Dim": m.HeadDim,
				"First": counting{count}.Layer(first), "Every": max(1, m.Layers/max(1, full))})
		case "KV cache":
			rows[i][1] = tr("views.model.hybrid_kv", i18n.Args{"PerToken": nums().Bytes(kv), "Full": full, "BF": nums().Bytes(kv / 2),
				"Sizes": kvSizes(kv, max(1, m.MaxPositions)), "State": nums().Bytes(float64(m.StateBytes))})
		}
	}
	rows = append(rows, [2]string{"Output head", tr("views.model.hybrid_head", i18n.Args{"Head": nums().Count(head), "Total": nums().Count(total), "Share": nums().Percent(float64(head) / float64(max(1, total)))})})
	if len(m.NotUsed) > 0 {
		parts := make([]string, len(m.NotUsed))
		for i, n := range m.NotUsed {
			parts[i] = unusedPart(n)
		}
		rows = append(rows, [2]string{"Not used", strings.Join(parts, ", ")})
	}
	return rows
}

// unusedPart is a checkpoint part the engine does not read, named by the
// engine in English ("vision tower", "MTP head"), in the window's
// language.
func unusedPart(name string) string {
	if k, ok := map[string]string{"vision tower": "views.model.vision_tower", "MTP head": "views.model.mtp_head"}[name]; ok {
		return tr(k, nil)
	}
	return name
}
