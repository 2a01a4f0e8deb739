package views

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"loupe/format"
)

// Axes is a Heatmap with its rows and columns numbered: a label per row
// on the left and per column below, centred on the cells, every one when
// they fit and every 2nd, 4th, 5th, 10th… when they do not. Row and Col
// name an index (nil: that axis has no numbers but keeps its band, so
// heatmaps side by side stay level).
type Axes struct {
	widget.BaseWidget
	Map      *Heatmap
	Row, Col func(i int) string
	// ColTitle is written under the column numbers ("heads"), RowTitle
	// above the row numbers ("layer").
	RowTitle, ColTitle string
	// Count is how Row and Col count, for which labels to keep when not
	// all fit (nil: from 1).
	Count *format.Numbering
}

// NewAxes numbers h's rows and columns with row and col.
func NewAxes(h *Heatmap, row, col func(int) string) *Axes {
	a := &Axes{Map: h, Row: row, Col: col}
	a.ExtendBaseWidget(a)
	return a
}

// CreateRenderer implements fyne.Widget.
func (a *Axes) CreateRenderer() fyne.WidgetRenderer {
	r := &axesRenderer{a: a}
	r.Refresh()
	return r
}

type axesRenderer struct {
	a                  *Axes
	rows, cols         []*canvas.Text
	rowTitle, colTitle *canvas.Text
}

func (r *axesRenderer) textSize() float32 { return theme.TextSize() * 0.85 }

// bands are the width of the row numbers and the height of the column
// numbers (plus the column title).
func (r *axesRenderer) bands() (left, bottom float32) {
	ts := r.textSize()
	rows, _ := r.a.Map.Dims()
	if r.a.Row != nil && rows > 0 {
		left = fyne.MeasureText(r.a.Row(rows-1), ts, fyne.TextStyle{}).Width + 6
		if r.a.RowTitle != "" {
			left = max(left, fyne.MeasureText(r.a.RowTitle, ts, fyne.TextStyle{}).Width+2)
		}
	}
	bottom = ts*1.4 + ts*1.3 // numbers, then the title (kept empty, so maps side by side stay level)
	return left, bottom
}

// topBand is the row title's band above the map (kept empty without
// one), with room for half a row number's line: at a few pixels a row
// the top number, centred on its row, rose over the title.
func (r *axesRenderer) topBand() float32 {
	ts := r.textSize()
	return ts*1.3 + fyne.MeasureText("0", ts, fyne.TextStyle{}).Height/2
}

func (r *axesRenderer) MinSize() fyne.Size {
	m := r.a.Map.MinSize()
	left, bottom := r.bands()
	return fyne.NewSize(m.Width+left, m.Height+bottom+r.topBand())
}

func (r *axesRenderer) Layout(s fyne.Size) {
	left, bottom := r.bands()
	ts := r.textSize()
	top := r.topBand()
	if r.rowTitle != nil {
		r.rowTitle.Move(fyne.NewPos(0, 0))
	}
	mapSize := fyne.NewSize(s.Width-left, s.Height-bottom-top)
	r.a.Map.Move(fyne.NewPos(left, top))
	r.a.Map.Resize(mapSize)
	rows, cols := r.a.Map.Dims()
	if rows > 0 && len(r.rows) == rows {
		ch := mapSize.Height / float32(rows)
		step := fitStep(rows, ch, r.rows[0].MinSize().Height-2) // the number's line, not its size: projector type overlapped
		for i, t := range r.rows {
			sr := r.a.Map.flip(i)
			t.Hidden = !labelled(i, rows, step, r.a.base())
			w := t.MinSize().Width
			t.Move(fyne.NewPos(left-4-w, top+(float32(sr)+0.5)*ch-t.MinSize().Height/2))
		}
	}
	if cols > 0 && len(r.cols) == cols {
		cw := mapSize.Width / float32(cols)
		wide := float32(0)
		for _, t := range r.cols {
			wide = max(wide, t.MinSize().Width)
		}
		step := fitStep(cols, cw, wide+4)
		for i, t := range r.cols {
			t.Hidden = !labelled(i, cols, step, r.a.base())
			t.Move(fyne.NewPos(left+(float32(i)+0.5)*cw-t.MinSize().Width/2, top+mapSize.Height+1))
		}
	}
	if r.colTitle != nil {
		r.colTitle.Move(fyne.NewPos(left+(mapSize.Width-r.colTitle.MinSize().Width)/2, top+mapSize.Height+ts*1.35))
	}
}

// fitStep is 1 when n labels of size each fit in cells of size cell, else
// the first of 2, 4, 5, 10, 20… that makes them fit.
func fitStep(n int, cell, each float32) int {
	for _, s := range []int{1, 2, 4, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000} {
		if cell*float32(s) >= each {
			return s
		}
	}
	return max(1, n)
}

// labelled reports whether index i carries its number at this step: every
// one at step 1, else those whose number (as counted) is a multiple of step.
func labelled(i, n, step, base int) bool {
	return step <= 1 || (i+base)%step == 0
}

// base is the number of the first row and column.
func (a *Axes) base() int {
	if a.Count == nil {
		return 1
	}
	return a.Count.Base()
}

func (r *axesRenderer) Refresh() {
	rows, cols := r.a.Map.Dims()
	ts := r.textSize()
	fg := theme.Color(theme.ColorNameForeground)
	mk := func(s string) *canvas.Text {
		t := canvas.NewText(s, fg)
		t.TextSize = ts
		return t
	}
	r.rows, r.cols = r.rows[:0], r.cols[:0]
	if r.a.Row != nil {
		for i := range rows {
			r.rows = append(r.rows, mk(r.a.Row(i)))
		}
	}
	if r.a.Col != nil {
		for i := range cols {
			r.cols = append(r.cols, mk(r.a.Col(i)))
		}
	}
	r.rowTitle, r.colTitle = nil, nil
	if r.a.RowTitle != "" {
		r.rowTitle = mk(r.a.RowTitle)
	}
	if r.a.ColTitle != "" {
		r.colTitle = mk(r.a.ColTitle)
	}
	r.Layout(r.a.Size())
	r.a.Map.Refresh()
	canvas.Refresh(r.a)
}

func (r *axesRenderer) Objects() []fyne.CanvasObject {
	objs := []fyne.CanvasObject{r.a.Map}
	for _, t := range r.rows {
		objs = append(objs, t)
	}
	for _, t := range r.cols {
		objs = append(objs, t)
	}
	if r.rowTitle != nil {
		objs = append(objs, r.rowTitle)
	}
	if r.colTitle != nil {
		objs = append(objs, r.colTitle)
	}
	return objs
}

func (r *axesRenderer) Destroy() {}
