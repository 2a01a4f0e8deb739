package viz

import (
	"image"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"loupe/trace"
)

// colorStrip paints a palette left to right across [lo, hi].
type colorStrip struct {
	colors []color.Color
	lo, hi float64
}

// Plot implements plot.Plotter.
func (s *colorStrip) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	n := len(s.colors)
	for i, col := range s.colors {
		x0 := trX(s.lo + (s.hi-s.lo)*float64(i)/float64(n))
		x1 := trX(s.lo + (s.hi-s.lo)*float64(i+1)/float64(n))
		c.FillPolygon(col, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1 + 0.3, Y: c.Min.Y}, {X: x1 + 0.3, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}})
	}
}

// DataRange implements plot.DataRanger.
func (s *colorStrip) DataRange() (xmin, xmax, ymin, ymax float64) { return s.lo, s.hi, 0, 1 }

// heat is a heatmap of rows[r][c] drawn at x = c, y = r, one filled
// cell each. Cells overlap their neighbours by a fraction of a point:
// abutting anti-aliased edges would otherwise leave light seams, and
// plotter.HeatMap's raster mode blurs cells by interpolation.
type heat struct {
	rows   [][]float64
	colors []color.Color
	lo, hi float64
	nan    color.Color
	raster int // cell count above which the cells are drawn as one image
}

// newHeat maps rows linearly from [lo, hi] onto the palette; values
// outside take the end colours, NaN the theme's grid colour.
func newHeat(rows [][]float64, pal interface{ Colors() []color.Color }, lo, hi float64, th Theme) *heat {
	if !(hi > lo) {
		hi = lo + 1 // a constant grid still draws, in the low colour
	}
	return &heat{rows: rows, colors: pal.Colors(), lo: lo, hi: hi, nan: th.Grid, raster: rasterAbove}
}

// rasterAbove is the cell count above which a heatmap is drawn as one
// image: a 3,139-token KV cache as vector cells took 156 ms to render at
// 1200×800 and made a 6.5 MB SVG.
const rasterAbove = 4096

// Plot implements plot.Plotter.
func (h *heat) Plot(c draw.Canvas, p *plot.Plot) {
	if !(c.Size().X > 0 && c.Size().Y > 0) {
		return // no room: an inverted canvas would make huge cells
	}
	trX, trY := p.Transforms(&c)
	if _, cols, _, _ := h.DataRange(); len(h.rows)*int(cols+0.5) > h.raster {
		h.plotRaster(c, trX, trY)
		return
	}
	const seam = vg.Length(0.4)
	for r, row := range h.rows {
		y0, y1 := trY(float64(r)-0.5), trY(float64(r)+0.5)+seam
		for col, v := range row {
			x0, x1 := trX(float64(col)-0.5), trX(float64(col)+0.5)+seam
			c.FillPolygon(h.color(v), c.ClipPolygonXY(rect(x0, y0, x1, y1)))
		}
	}
}

// plotRaster draws the cells as one image made at the canvas's own pixel
// size (nearest cell per pixel), so the renderer's interpolation has
// nothing to blur. A canvas without a DPI (SVG) gets 4 px per cell, at
// most 2,048 px a side.
func (h *heat) plotRaster(c draw.Canvas, trX, trY func(float64) vg.Length) {
	_, xmax, _, ymax := h.DataRange()
	cols, rows := int(xmax+0.5), len(h.rows)
	r := vg.Rectangle{Min: vg.Point{X: trX(-0.5), Y: trY(-0.5)}, Max: vg.Point{X: trX(xmax), Y: trY(ymax)}}
	wPx, hPx := min(2048, 4*cols), min(2048, 4*rows)
	if d, ok := c.Canvas.(interface{ DPI() float64 }); ok {
		wPx, hPx = max(1, int(r.Size().X.Dots(d.DPI())+0.5)), max(1, int(r.Size().Y.Dots(d.DPI())+0.5))
	}
	cells := h.cellColors(cols)
	img := image.NewRGBA(image.Rect(0, 0, wPx, hPx))
	for y := range hPx {
		row := cells[rows-1-y*rows/hPx] // image y runs down, row 0 is at the bottom
		pix := img.Pix[y*img.Stride:]
		for x := range wPx {
			c := row[x*cols/wPx]
			pix[4*x], pix[4*x+1], pix[4*x+2], pix[4*x+3] = c.R, c.G, c.B, c.A
		}
	}
	c.DrawImage(r, img)
}

// cellColors is the premultiplied colour of every cell, computed once
// rather than per pixel (per-pixel image.Set cost a quarter of the render).
func (h *heat) cellColors(cols int) [][]color.RGBA {
	out := make([][]color.RGBA, len(h.rows))
	for r, row := range h.rows {
		out[r] = make([]color.RGBA, cols)
		for c := range out[r] {
			v := math.NaN()
			if c < len(row) {
				v = row[c]
			}
			out[r][c] = color.RGBAModel.Convert(h.color(v)).(color.RGBA)
		}
	}
	return out
}

// color is the palette colour of v.
func (h *heat) color(v float64) color.Color {
	if math.IsNaN(v) {
		return h.nan
	}
	return colorAt(h.colors, (v-h.lo)/(h.hi-h.lo))
}

// DataRange implements plot.DataRanger.
func (h *heat) DataRange() (xmin, xmax, ymin, ymax float64) {
	cols := 0
	for _, row := range h.rows {
		cols = max(cols, len(row))
	}
	return -0.5, float64(cols) - 0.5, -0.5, float64(len(h.rows)) - 0.5
}

// outlines draws a frame around heatmap cells (layer = row, head = column):
// a highlight line on a background-coloured halo, visible on any palette
// colour, the bright top of viridis included.
type outlines struct {
	cells []trace.Head
	th    Theme
}

// Plot implements plot.Plotter; cells outside the grid are skipped by the
// canvas clip.
func (o *outlines) Plot(c draw.Canvas, p *plot.Plot) {
	if !(c.Size().X > 0 && c.Size().Y > 0) {
		return
	}
	trX, trY := p.Transforms(&c)
	halo := draw.LineStyle{Color: o.th.Background, Width: vg.Points(4)}
	line := draw.LineStyle{Color: o.th.Highlight, Width: vg.Points(2)}
	inset := halo.Width / 2 // keep the whole frame inside the cell
	for _, h := range o.cells {
		x0, x1 := trX(float64(h.Head)-0.5)+inset, trX(float64(h.Head)+0.5)-inset
		y0, y1 := trY(float64(h.Layer)-0.5)+inset, trY(float64(h.Layer)+0.5)-inset
		if x1 <= x0 || y1 <= y0 || x0 < c.Min.X || x1 > c.Max.X || y0 < c.Min.Y || y1 > c.Max.Y {
			continue
		}
		frame := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}, {X: x0, Y: y0}}
		c.StrokeLines(halo, frame)
		c.StrokeLines(line, frame)
	}
}
