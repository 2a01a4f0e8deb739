package viz

import (
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"loupe/format"
	"loupe/i18n"
)

// frame is the shell every figure shares: the theme's background, a title
// on top, caption lines at the bottom, and a body drawn in between.
type frame struct {
	th    Theme
	title string
	notes []string
	body  func(c draw.Canvas)
	// height, when set, is the height the body needs at width w: the
	// figure is fitted (Height).
	height func(w vg.Length) vg.Length
}

// Draw implements Figure.
func (f *frame) Draw(c draw.Canvas) {
	c.SetColor(f.th.Background)
	c.Fill(c.Rectangle.Path())
	pad := f.th.FontSize / 2
	in := draw.Crop(c, pad, -pad, pad, -pad)
	if f.title != "" {
		st := f.th.title()
		st.XAlign, st.YAlign = draw.XCenter, draw.YTop
		in.FillText(st, vg.Point{X: in.Center().X, Y: in.Max.Y}, fit(st, drawable(f.title), in.Size().X))
	}
	st := f.th.body()
	for i, n := range f.notes {
		y := in.Min.Y + vg.Length(len(f.notes)-1-i)*lineHeight(st)
		in.FillText(st, vg.Point{X: in.Min.X, Y: y}, fit(st, drawable(n), in.Size().X))
	}
	if f.body == nil {
		return
	}
	if body := f.bodyCanvas(c); roomy(body, f.th) || f.fits(body) {
		f.body(body)
	}
}

// roomy reports whether c can hold a plot: at least four lines of text
// each way. A smaller (or inverted) canvas makes gonum/plot compute
// inverted data areas, and a heatmap in one sent the rasteriser into an
// endless scan; such a figure shows its title only.
func roomy(c draw.Canvas, th Theme) bool {
	min := 4 * lineHeight(th.body())
	return c.Size().X >= min && c.Size().Y >= min
}

// fits reports whether a fitted figure's body has the height it needs:
// such a body is drawn even when it is less than roomy (a line of chips).
func (f *frame) fits(body draw.Canvas) bool {
	return f.height != nil && body.Size().X > 0 && body.Size().Y >= f.height(body.Size().X)
}

// bodyCanvas is the part of c left to the body once the margins, the title
// and the notes are taken.
func (f *frame) bodyCanvas(c draw.Canvas) draw.Canvas {
	pad := f.th.FontSize / 2
	in := draw.Crop(c, pad, -pad, pad, -pad)
	if f.title != "" {
		in.Max.Y -= lineHeight(f.th.title()) + pad
	}
	if len(f.notes) > 0 {
		in.Min.Y += vg.Length(len(f.notes))*lineHeight(f.th.body()) + pad/2
	}
	return in
}

func lineHeight(st text.Style) vg.Length { return st.Height("Mg") * 1.2 }

// fit shortens s with an ellipsis until it is at most w wide, so that a
// long title is cut visibly rather than clipped by the canvas.
func fit(st text.Style, s string, w vg.Length) string {
	if st.Width(s) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && st.Width(string(r)+"…") > w {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// empty is a figure saying there is nothing to draw, and why.
type empty struct {
	frame
	why string
}

// noData returns an empty figure with a title.
func noData(th Theme, title, why string) Figure {
	th = th.complete()
	e := &empty{why: why}
	e.frame = frame{th: th, title: title, body: func(c draw.Canvas) {
		st := th.body()
		st.XAlign, st.YAlign = draw.XCenter, draw.YCenter
		c.FillText(st, c.Center(), fit(st, th.t("nodata", i18n.Args{"Why": why}), c.Size().X))
	}}
	return e
}

// IsNoData reports whether f is a "no data" figure, and why.
func IsNoData(f Figure) (why string, ok bool) {
	e, ok := f.(*empty)
	if !ok {
		return "", false
	}
	return e.why, true
}

// NoData returns a themed figure that says "no data: why"; the GUI shows it
// where a figure has nothing yet.
func NoData(th Theme, why string) Figure { return noData(th, "", why) }

// alignRows moves the top and bottom of each canvas so that the data areas
// of the plots drawn side by side in them span the same heights: row i of
// one plot then lines up with row i of the next.
func alignRows(ps []*plot.Plot, cs []draw.Canvas) {
	top, bottom := vg.Length(1e9), vg.Length(-1e9)
	for i, p := range ps {
		dc := p.DataCanvas(cs[i])
		top, bottom = min(top, dc.Max.Y), max(bottom, dc.Min.Y)
	}
	for i, p := range ps {
		dc := p.DataCanvas(cs[i])
		cs[i].Max.Y -= dc.Max.Y - top
		cs[i].Min.Y += bottom - dc.Min.Y
	}
}

// alignCols is alignRows for plots drawn one above the other.
func alignCols(ps []*plot.Plot, cs []draw.Canvas) {
	right, left := vg.Length(1e9), vg.Length(-1e9)
	for i, p := range ps {
		dc := p.DataCanvas(cs[i])
		right, left = min(right, dc.Max.X), max(left, dc.Min.X)
	}
	for i, p := range ps {
		dc := p.DataCanvas(cs[i])
		cs[i].Max.X -= dc.Max.X - right
		cs[i].Min.X += left - dc.Min.X
	}
}

// splitX cuts c into columns whose widths are in the given proportions,
// with a gap between them.
func splitX(c draw.Canvas, gap vg.Length, weights ...float64) []draw.Canvas {
	var sum float64
	for _, w := range weights {
		sum += w
	}
	free := c.Size().X - gap*vg.Length(len(weights)-1)
	out := make([]draw.Canvas, len(weights))
	x := c.Min.X
	for i, w := range weights {
		out[i] = c
		out[i].Min.X = x
		out[i].Max.X = x + free*vg.Length(w/sum)
		x = out[i].Max.X + gap
	}
	return out
}

// splitY cuts c into a top part of the given height and the rest below.
func splitY(c draw.Canvas, topHeight, gap vg.Length) (top, bottom draw.Canvas) {
	top, bottom = c, c
	top.Min.Y = c.Max.Y - topHeight
	bottom.Max.Y = top.Min.Y - gap
	return top, bottom
}

// percentTicks labels a 0..1 axis in percent, in num's notation.
type percentTicks struct{ num format.Lang }

func (t percentTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo*100, hi*100)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = t.num.PercentTrim(ts[i].Value/100, 2) // "25 %", not "25.00 %"
		}
		ts[i].Value /= 100
	}
	return ts
}

// indexTicks marks every integer 0..n-1 and labels them as the reader
// counts (base 1: "1" at index 0), every one when step ≤ 1, else those
// whose number is a multiple of step. fitIndexTicks picks step from the room.
type indexTicks struct{ n, base, step int }

func (t indexTicks) Ticks(lo, hi float64) []plot.Tick {
	step := t.step
	if step <= 0 {
		step = niceStep(t.n)
	}
	var ts []plot.Tick
	for i := range t.n {
		tk := plot.Tick{Value: float64(i)}
		if step <= 1 || (i+t.base)%step == 0 {
			tk.Label = strconv.Itoa(i + t.base)
		}
		ts = append(ts, tk)
	}
	return ts
}

// fitIndexTicks labels every one of n indices laid along length when
// labels of size each (with a small gap) fit, else every 2nd, 4th, 5th,
// 10th…: the grids number every layer and head unless they cannot.
func fitIndexTicks(n, base int, length, each vg.Length) indexTicks {
	t := indexTicks{n: n, base: base, step: 1}
	if n <= 0 || each <= 0 {
		return t
	}
	perLabel := each * 1.15
	for _, s := range []int{1, 2, 4, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000} {
		t.step = s
		if vg.Length(n)/vg.Length(s)*perLabel <= length {
			return t
		}
	}
	t.step = n
	return t
}

// niceStep is the smallest of 1, 2, 4, 5, 10, 20, ... that labels at most
// about 12 of n indices.
func niceStep(n int) int {
	for _, s := range []int{1, 2, 4, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000} {
		if n <= 12*s {
			return s
		}
	}
	return n/12 + 1
}

// labelTicks puts labels[i] at the row that nominal order i occupies;
// rows are drawn top to bottom, so label 0 sits at value n-1.
func labelTicks(labels []string) plot.ConstantTicks {
	n := len(labels)
	ts := make(plot.ConstantTicks, n)
	for i, l := range labels {
		ts[i] = plot.Tick{Value: float64(n - 1 - i), Label: l}
	}
	return ts
}

// oneLine joins caption parts with a middle dot.
func oneLine(parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, "  ·  ")
}
