package viz

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// gapRows draws the rows of layers without an attention map (a hybrid
// model's Gated DeltaNet layers) as a band in the background colour with
// their label, so they read as "no attention here", not as zeros.
type gapRows struct {
	gaps  map[int]string
	heads int
	th    Theme
}

// Plot implements plot.Plotter.
func (g *gapRows) Plot(c draw.Canvas, p *plot.Plot) {
	if !(c.Size().X > 0 && c.Size().Y > 0) {
		return
	}
	trX, trY := p.Transforms(&c)
	x0, x1 := trX(-0.5), trX(float64(g.heads)-0.5)
	sty := g.th.text(g.th.FontSize*0.8, g.th.Foreground)
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	hatch := draw.LineStyle{Color: withAlpha(g.th.Grid, 0.6), Width: vg.Points(0.6)}
	for l, label := range g.gaps {
		y0, y1 := trY(float64(l)-0.5), trY(float64(l)+0.5)
		c.FillPolygon(g.th.Background, c.ClipPolygonXY(rect(x0, y0, x1, y1)))
		for x := x0; x < x1; x += vg.Points(6) { // light diagonal stripes
			c.StrokeLines(hatch, c.ClipLinesXY([]vg.Point{{X: x, Y: y0}, {X: min(x1, x+(y1-y0)), Y: y1}})...)
		}
		if label != "" && y1-y0 > g.th.FontSize*0.6 {
			c.FillText(sty, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, g.th.GapLabel(label))
		}
	}
}

func withAlpha(c color.Color, a float64) color.Color {
	r, gr, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(gr >> 8), B: uint8(b >> 8), A: uint8(255 * a)}
}
