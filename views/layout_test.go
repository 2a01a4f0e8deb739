package views

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// selectCut says a select is cut exactly where its drawn text ends in an
// ellipsis, over a sweep of widths.
func TestSelectCutMatchesTheEllipsis(t *testing.T) {
	newTestApp(t)
	title := "One step further: only part of the model per token"
	s := widget.NewSelect([]string{title}, nil)
	s.SetSelected(title)
	w := test.NewWindow(s)
	w.SetPadded(false)
	cuts := 0
	for width := float32(150); width <= 450; width += 2 {
		w.Resize(fyne.NewSize(width, 40))
		drawn := drawnText(s)
		ellipsis := drawn != title
		if selectCut(s) != ellipsis {
			t.Errorf("%.0f wide: drawn %q, selectCut %v", width, drawn, selectCut(s))
		}
		if ellipsis {
			cuts++
		}
	}
	if cuts == 0 {
		t.Error("no width cut the title: the sweep tests nothing")
	}
	w.Close()
}

// drawnText is the text of the canvas texts under o.
func drawnText(o fyne.CanvasObject) string {
	if t, ok := o.(*canvas.Text); ok {
		return t.Text
	}
	s := ""
	for _, c := range children(o) {
		s += drawnText(c)
	}
	return s
}
