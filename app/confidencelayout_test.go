package app

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
)

// rightSplit is the split between the token strip and the tabs.
func rightSplit(o fyne.CanvasObject) *container.Split {
	switch v := o.(type) {
	case *container.Split:
		if !v.Horizontal {
			return v
		}
		if s := rightSplit(v.Leading); s != nil {
			return s
		}
		return rightSplit(v.Trailing)
	case *fyne.Container:
		for _, k := range v.Objects {
			if s := rightSplit(k); s != nil {
				return s
			}
		}
	}
	return nil
}

// Colour by probability at 1,366 × 768: the legend is one line that does
// not take the strip's rows (two whole rows of tokens still show), and the
// divider under the strip still drags down and back up.
func TestConfidenceLegendKeepsTheStripsRows(t *testing.T) {
	h := newHarness(t, Options{})
	h.generate("My cat is purple . But my friends tell me there is no such thing as a purple cat . My cat is purple", 40)
	u := h.u
	onUI(func() { u.win.Resize(fyne.NewSize(screens[0].Width, screens[0].Height-titleBar-menuBar)) })
	var before float32
	onUI(func() { before = u.stream.RowsShown() })
	onUI(func() { u.setConfidence(true) })
	var shown, legendH, hoverH float32
	onUI(func() {
		shown, legendH, hoverH = u.stream.RowsShown(), u.stream.LegendHeight(), u.stream.HoverHeight()
	})
	if shown < 2 || shown < before-0.01 {
		t.Errorf("with the legend %.2f rows of tokens show, %.2f without", shown, before)
	}
	if legendH > hoverH+1 {
		t.Errorf("the legend is %v px high, more than one line (%v)", legendH, hoverH)
	}
	split := rightSplit(u.win.Content())
	if split == nil {
		t.Fatal("no split under the strip")
	}
	var h0, h1 float32
	onUI(func() {
		d := fyne.CurrentApp().Driver()
		h0 = u.stream.Size().Height
		at := d.AbsolutePositionForObject(u.stream).Add(fyne.NewPos(u.stream.Size().Width/2, h0+theme0(split)/2))
		test.Drag(u.win.Canvas(), at, 0, 60)
		h1 = u.stream.Size().Height
	})
	if h1 < h0+30 {
		t.Errorf("dragging the divider down 60 px: the strip went from %v to %v px", h0, h1)
	}
}

// menuBar is the height of the menu bar the desktop driver draws above
// the window's content (the test driver draws none): measured on a
// screenshot at 1,366 × 768.
const menuBar = 32

// theme0 is the gap between the split's two sides (its divider).
func theme0(s *container.Split) float32 {
	return s.Trailing.Position().Y - s.Leading.Size().Height
}
