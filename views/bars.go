package views

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Bar is one row of a Bars chart: a label, a share in [0, 1] or split
// segments, and the text printed after the bar.
type Bar struct {
	Label     string
	Segments  []float64 // shares of the full width, drawn one after the other
	Value     string
	Highlight bool
}

// Bars is a horizontal bar chart drawn with Fyne primitives, so it follows
// the window's theme and stays crisp at any scale.
type Bars struct {
	widget.BaseWidget
	LabelWidth float32
	Colors     []fyne.ThemeColorName // colour per segment (cycled)
	bars       []Bar
}

// NewBars makes an empty chart.
func NewBars() *Bars {
	b := &Bars{LabelWidth: 160, Colors: []fyne.ThemeColorName{theme.ColorNamePrimary}}
	b.ExtendBaseWidget(b)
	return b
}

// SetBars replaces the rows.
func (b *Bars) SetBars(bars []Bar) {
	b.bars = bars
	b.Refresh()
}

// Len is the number of rows (for tests).
func (b *Bars) Len() int { return len(b.bars) }

// Row returns row i (for tests).
func (b *Bars) Row(i int) Bar { return b.bars[i] }

// CreateRenderer implements fyne.Widget.
func (b *Bars) CreateRenderer() fyne.WidgetRenderer { return &barsRenderer{b: b} }

func barHeight() float32 { return theme.TextSize() + 14 }

type barsRenderer struct {
	b    *Bars
	objs []fyne.CanvasObject
	size fyne.Size
}

func (r *barsRenderer) MinSize() fyne.Size {
	return fyne.NewSize(r.b.LabelWidth+220, float32(len(r.b.bars))*barHeight())
}

// minBarW is the shortest a full bar gets where the widest value takes
// the rest: the bars' least width stays what it was (a value's width
// in it pushed the lesson card narrower in projector mode).
const minBarW = 24

// columns are the widths of the labels' and the values' columns: the
// values get what the widest needs, the labels LabelWidth or what the
// widest needs if more (under projector type a long token's name ran
// off the panel's left edge); where the bars are too narrow for that,
// the labels' column gives up its blank (under projector type the head's
// "39.5 % over 15 tokens" ran off the panel), then the value is cut.
func (r *barsRenderer) columns() (labelW, valueW float32) {
	widest := r.labelWidth()
	labelW, valueW = max(r.b.LabelWidth, widest), r.valueWidth()
	if short := labelW + minBarW + valueW - r.size.Width; short > 0 {
		labelW = max(min(widest, r.b.LabelWidth), labelW-short)
	}
	return labelW, min(valueW, r.size.Width-labelW-minBarW)
}

// labelWidth is the widest label's room (8 px of it a gap).
func (r *barsRenderer) labelWidth() float32 {
	w := float32(0)
	for _, bar := range r.b.bars {
		lab := canvas.Text{Text: bar.Label, TextSize: theme.TextSize(), TextStyle: fyne.TextStyle{Monospace: true}}
		w = max(w, lab.MinSize().Width+8)
	}
	return w
}

// valueWidth is the room right of the bars for the widest value (190 at
// least): a fixed 190 cut run B's timing in Compare, "(643.9 tok/".
func (r *barsRenderer) valueWidth() float32 {
	w := float32(190)
	for _, bar := range r.b.bars {
		val := canvas.Text{Text: bar.Value, TextSize: theme.TextSize(), TextStyle: fyne.TextStyle{Bold: bar.Highlight}}
		w = max(w, val.MinSize().Width+8) // drawn 6 px right of its bar
	}
	return w
}

func (r *barsRenderer) Layout(s fyne.Size) {
	r.size = s
	r.build()
}

func (r *barsRenderer) Refresh() {
	r.build()
	canvas.Refresh(r.b)
}

// build recreates the primitives: charts have at most a few dozen rows.
func (r *barsRenderer) build() {
	th := r.b.Theme()
	v := fyne.CurrentApp().Settings().ThemeVariant() // the theme may fix its own
	fg := th.Color(theme.ColorNameForeground, v)
	r.objs = r.objs[:0]
	h := barHeight()
	labelW, valueW := r.columns()
	barW := max(minBarW, r.size.Width-labelW-valueW)
	for i, bar := range r.b.bars {
		y := float32(i) * h
		if bar.Highlight {
			bg := canvas.NewRectangle(withAlpha(th.Color(theme.ColorNameWarning, v), 0x40))
			bg.Move(fyne.NewPos(0, y))
			bg.Resize(fyne.NewSize(r.size.Width, h))
			r.objs = append(r.objs, bg)
		}
		lab := canvas.NewText(bar.Label, fg)
		lab.TextStyle = fyne.TextStyle{Monospace: true}
		lab.Alignment = fyne.TextAlignTrailing
		lab.Move(fyne.NewPos(0, y+4))
		lab.Resize(fyne.NewSize(labelW-8, h-8))
		r.objs = append(r.objs, lab)
		x := labelW
		for k, s := range bar.Segments {
			w := barW * float32(clamp01(s))
			name := r.b.Colors[k%len(r.b.Colors)]
			rect := canvas.NewRectangle(th.Color(name, v))
			rect.Move(fyne.NewPos(x, y+4))
			rect.Resize(fyne.NewSize(w, h-8))
			r.objs = append(r.objs, rect)
			x += w
		}
		val := canvas.NewText(bar.Value, fg)
		val.TextStyle.Bold = bar.Highlight
		val.Move(fyne.NewPos(x+6, y+4))
		r.objs = append(r.objs, val)
	}
}

func clamp01(x float64) float64 {
	switch {
	case x != x || x < 0:
		return 0
	case x > 1:
		return 1
	}
	return x
}

func (r *barsRenderer) Objects() []fyne.CanvasObject { return r.objs }
func (r *barsRenderer) Destroy()                     {}

var _ color.Color = color.Black
