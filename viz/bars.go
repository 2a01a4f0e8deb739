package viz

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// hbar is one horizontal bar from X0 to X1 on row Y, with a label drawn
// just past its end.
type hbar struct {
	Y, X0, X1 float64
	Color     color.Color
	Label     string
}

// hbars draws horizontal bars with end labels. Unlike plotter.BarChart it
// reports its labels as glyph boxes, so the plot leaves room for them at
// any canvas size instead of clipping "92.5 %" at the right edge.
type hbars struct {
	bars  []hbar
	thick float64 // bar thickness in Y data units
	label text.Style
}

// Plot implements plot.Plotter.
func (b *hbars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, r := range b.bars {
		x0, x1 := trX(r.X0), trX(r.X1)
		if x1 < x0 {
			x0, x1 = x1, x0
		}
		x1 = max(x1, x0+vg.Points(0.75)) // a 0.1 % bar stays visible
		y0, y1 := trY(r.Y-b.thick/2), trY(r.Y+b.thick/2)
		c.FillPolygon(r.Color, c.ClipPolygonXY([]vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}))
		if r.Label != "" {
			st, pt := b.labelAt(r, trX, trY)
			c.FillText(st, pt, r.Label)
		}
	}
}

// labelAt places the label after the bar's end: right of a positive bar,
// left of a negative one.
func (b *hbars) labelAt(r hbar, trX, trY func(float64) vg.Length) (text.Style, vg.Point) {
	st := b.label
	st.YAlign = draw.YCenter
	gap := st.Font.Size / 3
	if r.X1 >= r.X0 {
		st.XAlign = draw.XLeft
		return st, vg.Point{X: trX(r.X1) + gap, Y: trY(r.Y)}
	}
	st.XAlign = draw.XRight
	return st, vg.Point{X: trX(r.X1) - gap, Y: trY(r.Y)}
}

// DataRange implements plot.DataRanger.
func (b *hbars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, r := range b.bars {
		xmin, xmax = min(xmin, r.X0, r.X1), max(xmax, r.X0, r.X1)
		ymin, ymax = min(ymin, r.Y-0.5), max(ymax, r.Y+0.5)
	}
	return xmin, xmax, ymin, ymax
}

// GlyphBoxes implements plot.GlyphBoxer: one box per label.
func (b *hbars) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	var boxes []plot.GlyphBox
	for _, r := range b.bars {
		if r.Label == "" {
			continue
		}
		st := b.label
		st.YAlign = draw.YCenter
		gap := st.Font.Size / 3
		rect := st.Rectangle(r.Label)
		if r.X1 >= r.X0 {
			rect.Min.X += gap
			rect.Max.X += gap
		} else {
			st.XAlign = draw.XRight
			rect = st.Rectangle(r.Label)
			rect.Min.X -= gap
			rect.Max.X -= gap
		}
		boxes = append(boxes, plot.GlyphBox{X: p.X.Norm(r.X1), Y: p.Y.Norm(r.Y), Rectangle: rect})
	}
	return boxes
}

// columns draws one touching vertical bar per value at x = 0, 1, 2, ...,
// coloured by sign: for hundreds or thousands of values (MLP, embedding).
// Each run of same-signed values is filled as one step-shaped polygon, so
// no anti-aliased seams stripe the bars.
type columns struct {
	values   []float64
	pos, neg color.Color
}

// Plot implements plot.Plotter.
func (b *columns) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for lo := 0; lo < len(b.values); {
		hi, neg := lo, b.values[lo] < 0
		for hi < len(b.values) && (b.values[hi] < 0) == neg {
			hi++
		}
		col := b.pos
		if neg {
			col = b.neg
		}
		c.FillPolygon(col, c.ClipPolygonXY(b.steps(lo, hi, trX, trY)))
		lo = hi
	}
}

// steps is the outline of bars lo..hi-1: along zero, then over each top.
func (b *columns) steps(lo, hi int, trX, trY func(float64) vg.Length) []vg.Point {
	x0, x1 := trX(float64(lo)-0.5), trX(float64(hi)-0.5)
	x1 = max(x1, x0+vg.Points(0.5))
	pts := []vg.Point{{X: x0, Y: trY(0)}}
	for i := lo; i < hi; i++ {
		y := trY(finiteOr0(b.values[i]))
		pts = append(pts, vg.Point{X: trX(float64(i) - 0.5), Y: y}, vg.Point{X: max(trX(float64(i)+0.5), x0+vg.Points(0.5)), Y: y})
	}
	return append(pts, vg.Point{X: x1, Y: trY(0)})
}

// DataRange implements plot.DataRanger; it always includes 0.
func (b *columns) DataRange() (xmin, xmax, ymin, ymax float64) {
	for _, v := range b.values {
		if !math.IsNaN(v) {
			ymin, ymax = min(ymin, v), max(ymax, v)
		}
	}
	return -0.5, float64(len(b.values)) - 0.5, ymin, ymax
}

// hline draws a horizontal line across the data area at y (the zero line).
type hline struct {
	y     float64
	style draw.LineStyle
}

// Plot implements plot.Plotter.
func (h hline) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(h.y)
	c.StrokeLine2(h.style, c.Min.X, y, c.Max.X, y)
}
