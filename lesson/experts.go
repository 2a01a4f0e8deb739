package lesson

import (
	"fmt"

	"loupe/format"
	"loupe/trace/stats"
)

// ExpertsFigures: what the first written token read of a mixture-of-
// experts model, and what the run touched (an MoE model's lesson only).
type ExpertsFigures struct {
	Pos          int     `json:"pos"` // the first written token
	Text         string  `json:"text"`
	Experts      int     `json:"experts"`           // E per MoE layer
	PerToken     int     `json:"experts_per_token"` // k the token ran
	MoELayers    int     `json:"moe_layers"`
	Active       int64   `json:"params_active"`
	Total        int64   `json:"params_total"`
	BytesRead    int64   `json:"weight_bytes_read"`  // 0: unknown
	BytesDense   int64   `json:"weight_bytes_dense"` // a dense model of the same parameters
	Written      int     `json:"written_tokens"`
	Touched      float64 `json:"touched_share"` // mean share of a layer's experts the written tokens chose
	UniformShare float64 `json:"uniform_share"` // what random routing would touch
}

func expertsChapter(f *facts) Chapter {
	first := f.gen[0]
	m := f.info
	fig := ExpertsFigures{Pos: first.Pos, Text: first.Chosen.Text, Experts: m.Experts, PerToken: m.ExpertsPerToken,
		MoELayers: len(first.Experts), Active: stats.ActiveParams(m), Total: stats.TotalParams(m), Written: len(f.gen)}
	if len(first.Experts) > 0 && len(first.Experts[0].IDs) > 0 {
		fig.PerToken = len(first.Experts[0].IDs)
	}
	if fig.MoELayers == 0 {
		fig.MoELayers = m.MoELayers
	}
	fig.BytesRead, fig.BytesDense = stats.ExpertBytes(m)
	if c := stats.TouchedCurve(f.gen, m.Experts); len(c) > 0 {
		fig.Touched = stats.OrZero(c[len(c)-1])
	}
	fig.UniformShare = stats.UniformTouched(m.Experts, fig.PerToken, fig.Written)
	text := fmt.Sprintf("This is a mixture-of-experts model: in each of its %d MoE layers the MLP is %d experts, and a small router "+
		"picks %d of them for every token. To write %s, this token read %d of %d experts per layer: %s of the %s parameters",
		fig.MoELayers, fig.Experts, fig.PerToken, tok(fig.Text), fig.PerToken, fig.Experts, format.Count(fig.Active), format.Count(fig.Total))
	switch ratio := float64(fig.BytesDense) / float64(max(1, fig.BytesRead)); {
	case fig.BytesRead == 0:
	case ratio < 1.5:
		text += fmt.Sprintf(", %s of weights against %s for a dense model of the same size — nearly the same here, because in "+
			"this small model the embedding and the output head outweigh the experts",
			format.Bytes(float64(fig.BytesRead)), format.Bytes(float64(fig.BytesDense)))
	default:
		text += fmt.Sprintf(", %s of weights against %s for a dense model of the same size — %.1f× fewer bytes, so about that much faster on the same memory",
			format.Bytes(float64(fig.BytesRead)), format.Bytes(float64(fig.BytesDense)), ratio)
	}
	text += fmt.Sprintf(". Over the %s, the layers used %s of their experts on average (random picks would reach %s). "+
		"Memory must hold every expert, the file's size; speed follows only what one token reads.",
		format.Plural(fig.Written, "written token"), format.Percent(fig.Touched), format.Percent(fig.UniformShare))
	return Chapter{ID: Experts, Title: "One step further: only part of the model per token", Text: text, Figures: fig,
		Show: Show{Tab: "Experts", Query: first.Pos, Source: -1, Layer: -1, Head: -1}}
}
