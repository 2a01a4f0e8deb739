package viz

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"loupe/i18n"
	"loupe/trace"
	"loupe/trace/stats"
)

// Grid is the attention one query token pays to one source token, for
// every layer and head: Weights[layer][head] in 0..1.
type Grid struct {
	Weights   [][]float32
	Query     string // token texts, shown with whitespace made visible
	Source    string
	QueryPos  int
	SourcePos int
	// Max is the top of the colour scale; 0 picks the data's maximum
	// rounded up to 5 %. Fix it (e.g. 1) to compare several grids.
	Max float64
	// Note is an extra caption line, e.g. the attention sink share.
	Note string
	// Marked heads are outlined: the head open in the GUI, or the heads an
	// ablation switches off.
	Marked []trace.Head
	// Gaps are the layers without an attention map (a hybrid model's Gated
	// DeltaNet layers), with the label drawn across their row (gaps.go).
	Gaps map[int]string
}

// GridOf is the grid of a source map (stats.SourceMapOf: the one way the
// window, the lesson page and the exports build it) with the query's and
// the source's texts from tokens, the sequence's texts.
func GridOf(m stats.SourceMap, tokens []string) Grid {
	g := Grid{QueryPos: m.QueryPos, SourcePos: m.SourcePos, Gaps: m.Gaps, Weights: make([][]float32, len(m.Cells))}
	for l, row := range m.Cells {
		g.Weights[l] = make([]float32, len(row))
		for h, v := range row {
			g.Weights[l][h] = float32(v)
		}
	}
	if m.QueryPos >= 0 && m.QueryPos < len(tokens) {
		g.Query = tokens[m.QueryPos]
	}
	if m.SourcePos >= 0 && m.SourcePos < len(tokens) {
		g.Source = tokens[m.SourcePos]
	}
	return g
}

// AttentionFigure is the layers × heads heatmap of a Grid with its colour
// scale below and the per-layer mean of the heads beside it. Layer 0 is
// the bottom row, as information rises through the layers.
type AttentionFigure struct {
	frame
	heat, means, scale *plot.Plot
	layers, heads      int
}

// AttentionGrid draws g. It works for any layers × heads shape (28 × 12,
// 4 × 8, 1 × 1); an empty grid gives a "no data" figure.
func AttentionGrid(g Grid, th Theme) Figure {
	th = th.complete()
	title := th.t("attention.title", i18n.Args{"Query": tokenTitle(g.Query, g.QueryPos, th), "Source": tokenTitle(g.Source, g.SourcePos, th)})
	layers, heads := len(g.Weights), 0
	for _, row := range g.Weights {
		heads = max(heads, len(row))
	}
	if layers == 0 || heads == 0 {
		return noData(th, title, th.t("attention.none", nil))
	}
	vmax := scaleMax(g)
	means := stats.RowMeans(g.Weights)
	f := &AttentionFigure{layers: layers, heads: heads}
	f.heat = attentionHeat(g.Weights, heads, vmax, th)
	f.heat.Add(&outlines{cells: g.Marked, th: th})
	if len(g.Gaps) > 0 {
		f.heat.Add(&gapRows{gaps: g.Gaps, heads: heads, th: th})
	}
	f.means = layerMeansPlot(means, th)
	f.scale = colorScale(th.Palette, vmax, th)
	f.frame = frame{th: th, title: title, notes: []string{peakNote(means, heads, th), g.Note}, body: f.drawBody}
	if g.Note == "" {
		f.notes = f.notes[:1]
	}
	return f
}

// tokenTitle names a position: “·purple” (#3), or #3 without a text.
func tokenTitle(text string, pos int, th Theme) string {
	if text == "" {
		return fmt.Sprintf("#%d", pos)
	}
	return fmt.Sprintf("%s (#%d)", th.quote(text), pos)
}

// scaleMax is g.Max, or the largest finite weight rounded up to 5 %.
func scaleMax(g Grid) float64 {
	if g.Max > 0 {
		return g.Max
	}
	return stats.ScaleMax(g.Weights)
}

// roundUp rounds x ≥ 0 up to a multiple of step, at least one step.
func roundUp(x, step float64) float64 {
	return max(step, math.Ceil(x/step-1e-9)*step)
}

// peakNote names the layer whose head mean is highest.
func peakNote(means []float64, heads int, th Theme) string {
	best := -1
	for l, m := range means {
		if !math.IsNaN(m) && (best < 0 || m > means[best]) {
			best = l
		}
	}
	if best < 0 {
		return th.t("attention.nofinite", nil)
	}
	return th.t("attention.peak", i18n.Args{"N": heads, "Layer": th.layer(best), "Share": th.pct(means[best])})
}

func (f *AttentionFigure) drawBody(body draw.Canvas) {
	heat, means, scale := f.panels(body)
	f.heat.Draw(heat)
	f.means.Draw(means)
	f.scale.Draw(scale)
}

// panels lays out the heatmap (top left), its colour scale (below it) and
// the layer means (right), with the means' rows level with the heatmap's.
func (f *AttentionFigure) panels(body draw.Canvas) (heat, means, scale draw.Canvas) {
	fs := f.th.FontSize
	cols := splitX(body, fs, 3, 1.2)
	f.fitTicks(cols[0].Size().X-4*fs, cols[0].Size().Y-8*fs)
	heat, scale = splitY(cols[0], cols[0].Size().Y-4.7*fs, fs/2)
	means = cols[1]
	cs := []draw.Canvas{heat, means}
	alignRows([]*plot.Plot{f.heat, f.means}, cs)
	heat, means = cs[0], cs[1]
	cs = []draw.Canvas{heat, scale}
	alignCols([]*plot.Plot{f.heat, f.scale}, cs)
	return cs[0], means, cs[1]
}

// fitTicks numbers every layer and head that fits in a heatmap of about
// w × h, counted as the theme says.
func (f *AttentionFigure) fitTicks(w, h vg.Length) {
	st := f.th.body()
	base := f.th.Count.Base()
	wide := st.Width(strconv.Itoa(f.heads - 1 + base))
	f.heat.X.Tick.Marker = fitIndexTicks(f.heads, base, w, wide+f.th.FontSize/2)
	f.heat.Y.Tick.Marker = fitIndexTicks(f.layers, base, h, st.Height("0"))
}

// heatArea is the heatmap's data rectangle, in points, for an image of
// wPx × hPx at dpi.
func (f *AttentionFigure) heatArea(wPx, hPx int, dpi float64) (vg.Rectangle, float64) {
	d := float64(max(1, int(math.Round(dpi)))) // the DPI Image really uses
	c := draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: Pixels(wPx, d), Y: Pixels(hPx, d)}}}
	heat, _, _ := f.panels(f.bodyCanvas(c))
	return f.heat.DataCanvas(heat).Rectangle, d
}

// CellAt maps a pixel (x right, y down from the top-left corner) of this
// figure rendered by Image(f, wPx, hPx, dpi) to the layer and head under
// it; ok is false outside the heatmap.
func (f *AttentionFigure) CellAt(x, y float64, wPx, hPx int, dpi float64) (layer, head int, ok bool) {
	r, d := f.heatArea(wPx, hPx, dpi)
	px, py := vg.Length(x*72/d), vg.Length((float64(hPx)-y)*72/d)
	if px < r.Min.X || px >= r.Max.X || py < r.Min.Y || py >= r.Max.Y {
		return 0, 0, false
	}
	head = int(float64((px - r.Min.X) / r.Size().X * vg.Length(f.heads)))
	layer = int(float64((py - r.Min.Y) / r.Size().Y * vg.Length(f.layers)))
	return min(layer, f.layers-1), min(head, f.heads-1), true
}

// CellRect is the pixel rectangle of cell (layer, head) in the image
// rendered by Image(f, wPx, hPx, dpi), for a hover frame.
func (f *AttentionFigure) CellRect(layer, head, wPx, hPx int, dpi float64) image.Rectangle {
	r, d := f.heatArea(wPx, hPx, dpi)
	cw, ch := r.Size().X/vg.Length(f.heads), r.Size().Y/vg.Length(f.layers)
	toPx := func(l vg.Length) int { return int(math.Round(float64(l) * d / 72)) }
	x0 := toPx(r.Min.X + cw*vg.Length(head))
	y1 := hPx - toPx(r.Min.Y+ch*vg.Length(layer))
	return image.Rect(x0, y1-toPx(ch), x0+toPx(cw), y1)
}

// Size returns the grid's layers and heads.
func (f *AttentionFigure) Size() (layers, heads int) { return f.layers, f.heads }

// attentionHeat is the layers × heads heatmap plot.
func attentionHeat(w [][]float32, heads int, vmax float64, th Theme) *plot.Plot {
	p := th.newPlot()
	rows := make([][]float64, len(w))
	for l, row := range w {
		rows[l] = make([]float64, heads)
		for h := range rows[l] {
			rows[l][h] = math.NaN()
			if h < len(row) {
				rows[l][h] = float64(row[h])
			}
		}
	}
	p.Add(newHeat(rows, th.Palette, 0, vmax, th))
	p.X.Label.Text, p.Y.Label.Text = th.t("head.axis", nil), th.t("layer.axis", nil)
	base := th.Count.Base()
	p.X.Tick.Marker, p.Y.Tick.Marker = indexTicks{n: heads, base: base}, indexTicks{n: len(w), base: base}
	p.X.Padding, p.Y.Padding = 0, 0
	p.X.Min, p.X.Max = -0.5, float64(heads)-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(w))-0.5
	return p
}

// layerMeansPlot draws one bar per layer (layer 0 at the bottom), the
// highest in the highlight colour.
func layerMeansPlot(means []float64, th Theme) *plot.Plot {
	p := th.newPlot()
	best := 0
	for l, m := range means {
		if !math.IsNaN(m) && (math.IsNaN(means[best]) || m > means[best]) {
			best = l
		}
	}
	b := &hbars{thick: 0.75, label: th.body()}
	top := 0.0
	for l, m := range means {
		top = max(top, finiteOr0(m))
		if math.IsNaN(m) {
			continue
		}
		bar := hbar{Y: float64(l), X1: m, Color: th.Accent}
		if l == best {
			bar.Color = th.Highlight
		}
		b.bars = append(b.bars, bar)
	}
	p.Add(b)
	p.X.Label.Text = th.t("attention.meanaxis", nil)
	p.X.Tick.Marker = th.percentAxis()
	p.X.Min, p.X.Max = 0, roundUp(top, 0.05)
	p.Y.Tick.Marker = indexTicks{n: 0}
	p.Y.Padding, p.X.Padding = 0, 0
	p.Y.Min, p.Y.Max = -0.5, float64(len(means))-0.5
	return p
}

// colorScale is the legend of the heatmap: the palette from 0 to vmax
// with percent ticks.
func colorScale(pal interface{ Colors() []color.Color }, vmax float64, th Theme) *plot.Plot {
	p := th.newPlot()
	p.Add(&colorStrip{colors: pal.Colors(), lo: 0, hi: vmax})
	p.X.Tick.Marker = th.percentAxis()
	p.X.Label.Text = th.t("attention.shareaxis", nil)
	p.X.Padding = 0
	p.HideY()
	return p
}
