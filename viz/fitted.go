package viz

import (
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Fitted figures have a height of their own: a row of token chips or a
// few timing bars drawn on a 3:2 slide leave most of it blank, so a page
// that prints them (the lesson's handout) asks for their height instead.

// Height is the height f needs at width w (points), and false for a
// figure that fills whatever it is given (a plot, a heatmap).
func Height(f Figure, w vg.Length) (vg.Length, bool) {
	fr, ok := f.(*frame)
	if !ok || fr.height == nil {
		return 0, false
	}
	pad := fr.th.FontSize / 2
	h := 2*pad + fr.height(w-2*pad)
	if fr.title != "" {
		h += lineHeight(fr.th.title()) + pad
	}
	if len(fr.notes) > 0 {
		h += vg.Length(len(fr.notes))*lineHeight(fr.th.body()) + pad/2
	}
	return h + 2, true // the canvas rounds to whole pixels
}

// Retitled is f with another title (a figure of this package; any other
// is returned as it is): the two halves of a comparison say which is
// which.
func Retitled(f Figure, title string) Figure {
	switch fr := f.(type) {
	case *frame:
		c := *fr
		c.title = title
		return &c
	case *empty:
		c := *fr
		c.title = title
		return &c
	}
	return f
}

// SideBySide draws left and right in the two halves of the canvas: the
// same kind of figure for two runs, read across.
func SideBySide(left, right Figure) Figure { return sideBySide{left, right} }

type sideBySide [2]Figure

// Draw implements Figure.
func (s sideBySide) Draw(c draw.Canvas) {
	half := c
	half.Max.X = c.Min.X + c.Size().X/2
	s[0].Draw(half)
	half.Min.X, half.Max.X = half.Max.X, c.Max.X
	s[1].Draw(half)
}
