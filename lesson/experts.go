package lesson

import (
	"loupe/i18n"
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
	text := f.t("experts.intro", i18n.Args{"MoELayers": fig.MoELayers, "Experts": fig.Experts, "K": fig.PerToken,
		"Token": f.tok(fig.Text), "Part": f.paramsPart(fig.Active, fig.Total)})
	bytes := i18n.Args{"Read": f.num.Bytes(float64(fig.BytesRead)), "Dense": f.num.Bytes(float64(fig.BytesDense))}
	switch ratio := stats.Ratio(float64(fig.BytesDense), float64(fig.BytesRead)); {
	case fig.BytesRead == 0:
	case ratio < 1.5:
		text += f.t("experts.same", bytes)
	default:
		bytes["Ratio"] = f.num.Fixed(ratio, 1)
		text += f.t("experts.fewer", bytes)
	}
	text += f.t("experts.touched", i18n.Args{"Written": f.units("written", fig.Written), "Touched": f.num.Percent(fig.Touched),
		"Uniform": f.num.Percent(fig.UniformShare)})
	return Chapter{ID: Experts, Title: f.t("experts.title", nil), Text: text, Figures: fig,
		Show: Show{Tab: "Experts", Query: first.Pos, Source: -1, Layer: -1, Head: -1}}
}
