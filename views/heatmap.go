package views

import (
	"image"
	"image/color"
	"loupe/format"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// Heatmap draws a rows × cols grid of values in [0, 1] with a colour-blind
// safe palette, and maps the mouse to a cell: the attention grid is layers
// (rows, layer 0 at the top) × heads (columns).
type Heatmap struct {
	widget.BaseWidget
	OnHover func(row, col int, v float64) // row -1 when the mouse leaves
	OnTap   func(row, col int)
	// OnToggle, when set, gets Ctrl+click (and Cmd+click) instead of OnTap:
	// adding a head to, or removing it from, a selection.
	OnToggle func(row, col int)
	// Color, when set, colours a raw value instead of Viridis of the scaled
	// one (a diverging palette for differences).
	Color func(v float64) color.NRGBA
	// AsBars draws each row as a horizontal bar whose length is the row's
	// first value over the largest (the per-layer mean beside the grid).
	AsBars bool
	// BottomUp puts row 0 at the bottom: layer 0 below, as information
	// rises through the layers (the viz figures do the same).
	BottomUp bool
	// Gapless draws no separating line between cells (a colour legend).
	Gapless bool
	// Max is the value drawn in the brightest colour (≤ 0: 1).
	Max float64
	// Gaps are data rows without values (a hybrid model's DeltaNet layers):
	// drawn hatched, with their label over them (gaps.go).
	Gaps map[int]string

	values   [][]float64
	marked   [2]int          // data row, col outlined as chosen; -1: none
	selected map[[2]int]bool // data cells outlined as selected (heads to switch off)
	ctrl     bool            // the button went down with Ctrl or Cmd held
	raster   *canvas.Raster
	cell     fyne.Size // minimum cell size
	// MaxMinWidth, when > 0, caps the minimum width: a grid of many
	// columns then takes narrower cells instead of widening the window.
	MaxMinWidth float32
}

// NewHeatmap makes an empty heatmap with cells at least cw × ch.
func NewHeatmap(cw, ch float32) *Heatmap {
	h := &Heatmap{cell: fyne.NewSize(cw, ch), marked: [2]int{-1, -1}}
	h.raster = canvas.NewRaster(h.draw)
	h.raster.ScaleMode = canvas.ImageScalePixels
	h.ExtendBaseWidget(h)
	return h
}

// SetValues replaces the grid (rows of equal length).
func (h *Heatmap) SetValues(v [][]float64) {
	h.values = v
	h.raster.Refresh()
	h.Refresh()
}

// Dims returns rows and columns.
func (h *Heatmap) Dims() (rows, cols int) {
	if len(h.values) == 0 {
		return 0, 0
	}
	return len(h.values), len(h.values[0])
}

// CellAt maps a position in the widget to a cell.
func (h *Heatmap) CellAt(p fyne.Position) (row, col int, ok bool) {
	rows, cols := h.Dims()
	s := h.Size()
	if rows == 0 || s.Width <= 0 || s.Height <= 0 || p.X < 0 || p.Y < 0 {
		return 0, 0, false
	}
	row = int(p.Y / s.Height * float32(rows))
	col = int(p.X / s.Width * float32(cols))
	if row >= rows || col >= cols {
		return 0, 0, false
	}
	return h.flip(row), col, true
}

// flip maps a screen row to a data row and back.
func (h *Heatmap) flip(r int) int {
	if h.BottomUp {
		return len(h.values) - 1 - r
	}
	return r
}

// scaled maps a value to [0, 1] of the colour scale.
func (h *Heatmap) scaled(v float64) float64 {
	if h.Max > 0 {
		return v / h.Max
	}
	return v
}

// draw paints one pixel block per cell with a one-pixel gap between cells.
func (h *Heatmap) draw(w, ht int) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, w, ht))
	rows, cols := h.Dims()
	if rows == 0 {
		return img
	}
	if h.AsBars {
		h.drawBars(img, w, ht)
		return img
	}
	cells := h.cellColours()
	for y := range ht {
		r := y * rows / ht
		gapY := (y+1)*rows/ht != r && ht/rows > 3 && !h.Gapless
		if _, ok := h.Gaps[h.flip(r)]; ok {
			hatchRow(img, y, w)
			continue
		}
		for x := range w {
			c := x * cols / w
			gapX := (x+1)*cols/w != c && w/cols > 3 && !h.Gapless
			if gapX || gapY {
				continue
			}
			img.SetNRGBA(x, y, cells[h.flip(r)][c])
		}
	}
	t := max(1, min(3, min(w/cols, ht/rows)/5)) // thin on small cells: the value stays visible
	for cell := range h.selected {
		h.frame(img, w, ht, cell[0], cell[1], selectColour, t)
	}
	h.outline(img, w, ht)
	return img
}

// selectColour frames the selected cells: orange, apart from every
// viridis colour and from the white frame of the open head.
var selectColour = color.NRGBA{255, 94, 0, 255}

// cellColours is the colour of every data cell, [rows][cols]: worked out
// once a cell, not once a pixel (a grid of 28 × 12 cells fills ~200,000
// pixels, and the window redraws it with every batch of tokens).
func (h *Heatmap) cellColours() [][]color.NRGBA {
	cells := make([][]color.NRGBA, len(h.values))
	for r, row := range h.values {
		cells[r] = make([]color.NRGBA, len(row))
		for c, v := range row {
			cells[r][c] = h.colour(v)
		}
	}
	return cells
}

func (h *Heatmap) colour(v float64) color.NRGBA {
	if v != v {
		return color.NRGBA{} // no value: left transparent
	}
	if h.Color != nil {
		return h.Color(v)
	}
	return format.Viridis.At(h.scaled(v))
}

// SetSelected frames the given data cells (nil: none).
func (h *Heatmap) SetSelected(cells [][2]int) {
	h.selected = make(map[[2]int]bool, len(cells))
	for _, c := range cells {
		h.selected[c] = true
	}
	h.raster.Refresh()
}

// frame draws a frame of width t inside cell (row, col) of the data.
func (h *Heatmap) frame(img *image.NRGBA, w, ht, row, col int, c color.NRGBA, t int) {
	rows, cols := h.Dims()
	if row < 0 || row >= rows || col < 0 || col >= cols {
		return
	}
	sr := h.flip(row)
	x0, x1 := col*w/cols, (col+1)*w/cols-2
	y0, y1 := sr*ht/rows, (sr+1)*ht/rows-2
	for y := y0; y <= y1; y++ {
		for x := x0; x <= x1; x++ {
			if x < x0+t || x > x1-t || y < y0+t || y > y1-t {
				img.Set(x, y, c)
			}
		}
	}
}

// Mark outlines the cell (row, col) of the data, e.g. the open head;
// a row of -1 removes the mark.
func (h *Heatmap) Mark(row, col int) {
	if h.marked != [2]int{row, col} {
		h.marked = [2]int{row, col}
		h.raster.Refresh()
	}
}

// outline draws a two-pixel white frame inside the marked cell.
func (h *Heatmap) outline(img *image.NRGBA, w, ht int) {
	rows, cols := h.Dims()
	r, c := h.marked[0], h.marked[1]
	if r < 0 || r >= rows || c < 0 || c >= cols {
		return
	}
	sr := h.flip(r) // screen row
	x0, x1 := c*w/cols, (c+1)*w/cols-2
	y0, y1 := sr*ht/rows, (sr+1)*ht/rows-2
	white := color.NRGBA{255, 255, 255, 255}
	for x := x0; x <= x1; x++ {
		for _, y := range []int{y0, y0 + 1, y1 - 1, y1} {
			img.Set(x, y, white)
		}
	}
	for y := y0; y <= y1; y++ {
		for _, x := range []int{x0, x0 + 1, x1 - 1, x1} {
			img.Set(x, y, white)
		}
	}
}

// drawBars paints row r as a bar of length values[r][0] / max.
func (h *Heatmap) drawBars(img *image.NRGBA, w, ht int) {
	rows := len(h.values)
	top := 1e-9
	for _, r := range h.values {
		if r[0] == r[0] {
			top = math.Max(top, r[0])
		}
	}
	for y := range ht {
		r := y * rows / ht
		if (y+1)*rows/ht != r && ht/rows > 3 {
			continue
		}
		if _, ok := h.Gaps[h.flip(r)]; ok {
			hatchRow(img, y, w)
			continue
		}
		v := h.values[h.flip(r)][0]
		n := int(float64(w) * clamp01(v/top))
		for x := range n {
			img.Set(x, y, h.colour(v))
		}
	}
}

func (h *Heatmap) Tapped(e *fyne.PointEvent) {
	r, c, ok := h.CellAt(e.Position)
	switch {
	case !ok:
	case h.ctrl && h.OnToggle != nil:
		h.OnToggle(r, c)
	case h.OnTap != nil:
		h.OnTap(r, c)
	}
}

// MouseDown notes whether Ctrl (or Cmd) is held for the tap that follows.
func (h *Heatmap) MouseDown(e *desktop.MouseEvent) {
	h.ctrl = e.Modifier&(fyne.KeyModifierControl|fyne.KeyModifierSuper) != 0
}
func (h *Heatmap) MouseUp(*desktop.MouseEvent) {}

func (h *Heatmap) MouseIn(e *desktop.MouseEvent) { h.MouseMoved(e) }
func (h *Heatmap) MouseMoved(e *desktop.MouseEvent) {
	if r, c, ok := h.CellAt(e.Position); ok && h.OnHover != nil {
		h.OnHover(r, c, h.values[r][c])
	}
}
func (h *Heatmap) MouseOut() {
	if h.OnHover != nil {
		h.OnHover(-1, -1, 0)
	}
}

// CreateRenderer implements fyne.Widget.
func (h *Heatmap) CreateRenderer() fyne.WidgetRenderer {
	return &heatRenderer{h: h}
}

type heatRenderer struct {
	h      *Heatmap
	labels []fyne.CanvasObject // the gaps' labels (gaps.go)
}

func (r *heatRenderer) Layout(s fyne.Size) {
	r.h.raster.Resize(s)
	r.layoutGaps(s)
}
func (r *heatRenderer) MinSize() fyne.Size {
	rows, cols := r.h.Dims()
	w := float32(max(cols, 1)) * r.h.cell.Width
	if r.h.MaxMinWidth > 0 {
		w = min(w, r.h.MaxMinWidth)
	}
	return fyne.NewSize(w, float32(max(rows, 1))*r.h.cell.Height)
}
func (r *heatRenderer) Refresh() {
	r.refreshGaps()
	r.h.raster.Refresh()
}
func (r *heatRenderer) Objects() []fyne.CanvasObject {
	return append([]fyne.CanvasObject{r.h.raster}, r.labels...)
}
func (r *heatRenderer) Destroy() {}
