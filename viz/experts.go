package viz

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"

	"loupe/i18n"
	"loupe/trace"
)

// ExpertsView is what the Experts figure draws: one token's routing in
// every MoE layer, and per layer the share of its experts the run had
// touched by then.
type ExpertsView struct {
	Token   string          // the token, for the title
	Layers  int             // all layers of the model (dense ones drawn empty)
	Experts int             // E
	Routes  []trace.Routing // the token's router decision per MoE layer
	Touched []float64       // [Layers] share of the layer's experts touched so far; NaN: dense layer
	Notes   []string        // sentences under the title (how to read it, the bytes)
}

// ExpertsFigure draws a layers × experts heatmap of the router's
// probabilities (layer 0 at the bottom) with the k chosen experts of each
// layer outlined, and beside it a bar per layer: the share of its experts
// the run's tokens had chosen by this one.
func ExpertsFigure(v ExpertsView, th Theme) Figure {
	th = th.complete()
	title := th.t("experts.title", i18n.Args{"Token": v.Token})
	if len(v.Routes) == 0 || v.Experts == 0 || v.Layers == 0 {
		return noData(th, title, th.t("experts.none", nil))
	}
	grid := make([][]float64, v.Layers)
	for l := range grid {
		grid[l] = make([]float64, v.Experts)
		for e := range grid[l] {
			grid[l][e] = math.NaN()
		}
	}
	top := 0.0
	var chosen []trace.Head
	for _, r := range v.Routes {
		if r.Layer < 0 || r.Layer >= v.Layers {
			continue
		}
		for e, p := range r.Probs {
			if e < v.Experts {
				grid[r.Layer][e] = float64(p)
				top = max(top, float64(p))
			}
		}
		for _, e := range r.IDs {
			chosen = append(chosen, trace.Head{Layer: r.Layer, Head: e})
		}
	}
	heat := th.newPlot()
	heat.Add(newHeat(grid, th.Palette, 0, max(top, 1e-9), th))
	heat.Add(&outlines{cells: chosen, th: th})
	heat.X.Label.Text = th.t("experts.axis", i18n.Args{"Top": th.num().Fixed(top, 2)})
	heat.Y.Label.Text = th.t("layer.axis", nil)
	heat.X.Padding, heat.Y.Padding = 0, 0
	heat.X.Min, heat.X.Max = -0.5, float64(v.Experts)-0.5
	heat.Y.Min, heat.Y.Max = -0.5, float64(v.Layers)-0.5
	base := th.Count.Base()
	heat.X.Tick.Marker = indexTicks{n: v.Experts, base: base}
	heat.Y.Tick.Marker = indexTicks{n: v.Layers, base: base}

	bars := th.newPlot()
	hb := &hbars{thick: 0.7, label: th.body()}
	for l, s := range v.Touched {
		if s == s {
			hb.bars = append(hb.bars, hbar{Y: float64(l), X0: 0, X1: s, Color: th.Accent, Label: th.num().PercentWhole(s)})
		}
	}
	bars.Add(hb)
	bars.X.Label.Text = th.t("experts.touched", nil)
	bars.X.Min, bars.X.Max = 0, 1
	bars.Y.Min, bars.Y.Max = -0.5, float64(v.Layers)-0.5
	bars.Y.Padding = 0
	bars.Y.Tick.Marker = indexTicks{n: v.Layers, base: base}
	return &frame{th: th, title: title, notes: v.Notes, body: func(c draw.Canvas) {
		gap := th.FontSize
		w := c.Size().X - gap
		left, right := c, c
		left.Max.X = c.Min.X + w*0.72
		right.Min.X = left.Max.X + gap
		cs := []draw.Canvas{left, right}
		alignRows([]*plot.Plot{heat, bars}, cs)
		heat.Draw(cs[0])
		bars.Draw(cs[1])
	}}
}
