package views

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/widget"

	"loupe/viz"
)

// figureBox shows a viz figure rendered at a fixed size in pixels and
// scaled to fit the room, for the panels whose figure is their picture
// (Embedding, KV cache, Logit lens, Sampler stages). Theme gives the
// figure's theme (the app's window variant and View › Count); nil: Dark.
type figureBox struct {
	img  *canvas.Image
	w, h int
	fig  viz.Figure
}

func newFigureBox(w, h int) *figureBox {
	b := &figureBox{img: canvas.NewImageFromImage(nil), w: w, h: h}
	b.img.FillMode = canvas.ImageFillContain
	b.img.SetMinSize(figureMin(w, h))
	return b
}

// setHeight changes the figure's height in pixels (drawn at the next show).
func (b *figureBox) setHeight(h int) {
	if h != b.h {
		b.h = h
		b.img.SetMinSize(figureMin(b.w, h))
	}
}

// FigureMinWidth is the narrowest a panel's figure gets. A figure is
// drawn w × h pixels, 1:1 (text at the window's size) when the panel is
// that wide, and scaled down to fit a narrower one: a figure's own width
// as the minimum widened the window past a 1,366 px screen.
const FigureMinWidth = 480

// figureMin is the minimum size of a w × h figure: its height, and no
// more than FigureMinWidth of its width.
func figureMin(w, h int) fyne.Size {
	return fyne.NewSize(float32(min(w, FigureMinWidth)), float32(h))
}

// show draws fig (nil: clears).
func (b *figureBox) show(fig viz.Figure) {
	b.fig = fig
	b.img.Image = nil
	if fig != nil {
		if img, err := viz.Image(fig, b.w, b.h, viz.DPI); err == nil {
			b.img.Image = img
		}
	}
	b.img.Refresh()
}

// figTheme is th() (the app's, counting as View › Count says) or the
// dark theme.
func figTheme(th func() viz.Theme) viz.Theme {
	if th != nil {
		return th()
	}
	dark := viz.Dark()
	dark.Lang = Lang
	return dark
}

// caption is a wrapping label for the plain sentences under a figure.
func caption(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.Wrapping = fyne.TextWrapWord
	return l
}
