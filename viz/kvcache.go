package viz

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"

	"loupe/i18n"
	"loupe/trace/stats"
)

// maxKVRows bounds the rows a KV heatmap draws; longer caches are pooled
// (mean of consecutive tokens) so 3,139 tokens stay a readable picture and
// a small SVG.
const maxKVRows = 256

// KVCache draws the cached keys and values of one layer and KV head:
// two heatmaps of tokens (rows, first token on top) × head_dim, each on a
// symmetric diverging scale, with a colour scale under each.
func KVCache(k, v [][]float32, tokens []string, th Theme) Figure {
	th = th.complete()
	n, dim := len(k), width(k)
	title := th.t("kv.title", i18n.Args{"Tokens": th.tokens(n), "Dim": dim})
	if n == 0 || dim == 0 || len(v) == 0 || width(v) == 0 {
		return noData(th, th.t("kv.untitled", nil), th.t("kv.none", nil))
	}
	kr, starts := stats.PoolRows(k, maxKVRows)
	vr, _ := stats.PoolRows(v, maxKVRows)
	labels := rowLabels(tokens, starts, n)
	note := th.t("kv.rows", nil)
	if len(starts) < n {
		note = th.t("kv.bins", i18n.Args{"N": th.num().Thousands(int64((n + len(starts) - 1) / len(starts)))})
	}
	return &frame{th: th, title: title, notes: []string{note}, body: func(c draw.Canvas) {
		fit := rowsThatFit(c, th) // labels that fit beside the heatmap
		kp, kb := kvHeat(kr, labels, fit, th.t("kv.keys", nil), th)
		vp, vb := kvHeat(vr, nil, fit, th.t("kv.values", nil), th)
		drawSideBySide(c, th, [2]*plot.Plot{kp, vp}, [2]*plot.Plot{kb, vb})
	}}
}

// width is the longest row of m.
func width(m [][]float32) int {
	w := 0
	for _, r := range m {
		w = max(w, len(r))
	}
	return w
}

// rowLabels names each pooled row by its first token ("·purple") or, when
// rows are pooled or texts missing, by its first position.
func rowLabels(tokens []string, starts []int, n int) []string {
	labels := make([]string, len(starts))
	for i, s := range starts {
		if len(starts) == n && s < len(tokens) {
			labels[i] = cut(visible(tokens[s]), 12)
		} else {
			labels[i] = fmt.Sprintf("#%d", s)
		}
	}
	return labels
}

// kvHeat is one heatmap (first row on top) and its colour scale, on
// ±max|x| so that zero is the middle colour.
func kvHeat(rows [][]float64, labels []string, fit int, name string, th Theme) (heatPlot, scale *plot.Plot) {
	lim := 0.0
	for _, r := range rows {
		for _, x := range r {
			lim = max(lim, math.Abs(finiteOr0(x)))
		}
	}
	if lim == 0 {
		lim = 1 // all zero or NaN
	}
	flipped := make([][]float64, len(rows))
	for i, r := range rows {
		flipped[len(rows)-1-i] = r
	}
	p := th.newPlot()
	p.Add(newHeat(flipped, th.Diverging, -lim, lim, th))
	p.X.Label.Text = name
	p.X.Padding, p.Y.Padding = 0, 0
	p.X.Min, p.X.Max = -0.5, float64(len(rows[0]))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(rows))-0.5
	p.X.Tick.Marker = integerTicks{}
	p.Y.Tick.Marker = sparseLabels(labels, fit)
	s := th.newPlot()
	s.Add(&colorStrip{colors: th.Diverging.Colors(), lo: -lim, hi: lim})
	s.X.Padding = 0
	s.HideY()
	return p, s
}

// sparseLabels labels at most fit rows (row 0 on top), so names stay
// apart however many tokens there are.
func sparseLabels(labels []string, fit int) plot.ConstantTicks {
	n := len(labels)
	fit = max(1, fit)
	step := max(1, (n+fit-1)/fit)
	var ts plot.ConstantTicks
	for i, l := range labels {
		if i%step == 0 {
			ts = append(ts, plot.Tick{Value: float64(n - 1 - i), Label: l})
		}
	}
	return ts
}

// drawSideBySide draws two heatmaps with their scales below, rows level.
func drawSideBySide(c draw.Canvas, th Theme, heats, scales [2]*plot.Plot) {
	fs := th.FontSize
	cols := splitX(c, 2*fs, 1.15, 1) // the left one carries the token labels
	var hc, sc [2]draw.Canvas
	for i := range cols {
		hc[i], sc[i] = splitY(cols[i], cols[i].Size().Y-3.4*fs, fs/2)
	}
	rows := hc[:]
	alignRows(heats[:], rows)
	for i := range 2 {
		cs := []draw.Canvas{rows[i], sc[i]}
		alignCols([]*plot.Plot{heats[i], scales[i]}, cs)
		heats[i].Draw(cs[0])
		scales[i].Draw(cs[1])
	}
}
