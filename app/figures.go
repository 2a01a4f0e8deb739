package app

import (
	"fmt"
	"image"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"loupe/format"
	"loupe/trace"
	"loupe/trace/stats"
	"loupe/views"
	"loupe/viz"
)

// exportW and exportH are the size of an exported figure, in pixels at
// viz.DPI: a 3:2 slide.
const exportW, exportH = 1500, 1000

// vizTheme matches the figures to the window's light or dark variant.
func (u *UI) vizTheme() viz.Theme {
	th := viz.Dark()
	if u.variant() == theme.VariantLight {
		th = viz.Light()
	}
	th.Count = views.Numbers // View › Count layers and heads, exports included
	return th
}

// figure is the viz figure of a panel for the current selection; false when
// the panel has none (it is then exported as the window shows it).
func (u *UI) figure(panel string) (viz.Figure, bool) {
	if f, ok := u.insideFigure(panel); ok {
		return f, true
	}
	th := u.vizTheme()
	switch panel {
	case "attention":
		a, ok := u.attn.Shown() // captured, or recomputed on demand
		if !ok {
			return viz.NoData(th, "no attention captured for this token"), true
		}
		g, err := viz.GridFrom(a, u.texts(), u.attn.Source())
		if err != nil {
			return viz.NoData(th, err.Error()), true
		}
		for l := range g.Gaps {
			if !u.info.HasAttention(l) {
				g.Gaps[l] = "Gated DeltaNet · no attention map"
			}
		}
		g.Note = fmt.Sprintf("attention sink: %s of every head's attention on the first token on average", format.Percent(stats.SinkShare(a)))
		return viz.AttentionGrid(g, th), true
	case "head":
		a, ok := u.attn.Shown()
		l, h := u.attn.OpenedHead()
		if !ok || l < 0 || l >= len(a.Weights) || h >= len(a.Weights[l]) {
			return viz.NoData(th, "no head open"), true
		}
		return viz.HeadBars(u.texts()[:a.QueryPos+1], a.Weights[l][h], u.attn.HeadTitle.Text, th), true
	case "next-token":
		s, ok := u.next.Step()
		if !ok {
			return viz.NoData(th, "no candidates recorded for this token"), true
		}
		return viz.TopCandidates(append([]trace.Candidate(nil), s.Top...), s.Chosen.ID, th), true
	case "timing":
		rows := make([]viz.TimingRow, len(u.timings))
		for i, t := range u.timings {
			rows[i] = viz.TimingFrom(fmt.Sprintf("run %d", i+1), t)
		}
		return viz.TimingBars(rows, u.bandwidth, th), true
	case "mlp":
		m, ok := u.mlp.Shown()
		if !ok {
			return viz.NoData(th, "no MLP values for this token and layer"), true
		}
		return viz.MLPValues(m.Values, mlpShown, u.mlp.Title.Text, th), true
	case "deltanet":
		d, ok := u.deltaNet.Shown()
		if !ok {
			return viz.NoData(th, "no Gated DeltaNet values: this model has none, or no run has finished"), true
		}
		return viz.DeltaNetFigure(d, views.WhyNoAttention(u.info), th), true
	case "experiments":
		return u.experimentFigure(), true
	case "model":
		if u.backend == nil {
			return viz.NoData(th, "no model loaded"), true
		}
		return viz.ParamShares(u.info, th), true
	}
	return nil, false
}

// mlpShown is how many of the largest |values| the MLP figure draws.
const mlpShown = 300

// renderMLP draws the MLP figure for the panel at w × h pixels.
func (u *UI) renderMLP(values []float32, title string, w, h int) image.Image {
	img, err := viz.Image(viz.MLPValues(values, mlpShown, title, u.vizTheme()), w, h, viz.DPI)
	if err != nil {
		return nil
	}
	return img
}

// texts are the token pieces of the sequence shown.
func (u *UI) texts() []string {
	out := make([]string, len(u.tokens))
	for i, t := range u.tokens {
		out[i] = t.Text
	}
	return out
}

// renderFigure encodes a figure as PNG or SVG.
func renderFigure(f viz.Figure, format string) ([]byte, error) {
	w, h := viz.Pixels(exportW, viz.DPI), viz.Pixels(exportH, viz.DPI)
	switch format {
	case "png":
		return viz.PNG(f, w, h)
	case "svg":
		return viz.SVG(f, w, h)
	}
	return nil, fmt.Errorf("unknown export format %q", format)
}

var _ fyne.Theme = loupeTheme{}
