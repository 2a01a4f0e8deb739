package viz

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
)

// row is one labelled horizontal bar of a ranking figure.
type row struct {
	name  string // axis label
	value float64
	color color.Color
	text  string // printed after the bar
}

// rowPlot draws rows top to bottom (row 0 on top) as horizontal bars
// from 0, names on the left, texts after the bars.
func rowPlot(rows []row, xLabel string, ticks plot.Ticker, th Theme) *plot.Plot {
	p := th.newPlot()
	b := &hbars{thick: 0.7, label: th.body()}
	names := make([]string, len(rows))
	n := len(rows)
	for i, r := range rows {
		names[i] = r.name
		b.bars = append(b.bars, hbar{Y: float64(n - 1 - i), X1: finiteOr0(r.value), Color: r.color, Label: r.text})
	}
	p.Add(b)
	p.Y.Tick.Marker = labelTicks(names)
	p.Y.Tick.Length = 0
	p.Y.Padding = 0
	p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
	p.X.Min = 0
	if !(p.X.Max > 0) {
		p.X.Max = 1 // all zero or NaN: a readable 0..100 % axis
	}
	p.X.Label.Text = xLabel
	if ticks != nil {
		p.X.Tick.Marker = ticks
	}
	return p
}

// rowsThatFit is how many bar rows of body text fit in c above an axis,
// one line per row (lineHeight already has 20 % leading), so labels never overlap however small the figure.
func rowsThatFit(c draw.Canvas, th Theme) int {
	lh := lineHeight(th.body())
	axis := 3 * lh // tick labels and axis label
	return max(1, int((c.Size().Y-axis)/lh))
}

// drawRows builds the plot for the rows that fit in c and draws it.
func drawRows(c draw.Canvas, th Theme, build func(fit int) *plot.Plot) {
	build(rowsThatFit(c, th)).Draw(c)
}
