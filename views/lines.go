package views

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// Lines holds a wrapping label at the height of n lines at least, so that
// what lies above or below it stays put as its text changes length: the
// hint under the Heads field went from two lines to one and back as heads
// were selected, and the grid above jumped by a line (~20 px).
func Lines(n int, l *widget.Label) fyne.CanvasObject {
	probe := widget.NewLabel(strings.TrimSuffix(strings.Repeat("X\n", n), "\n"))
	probe.TextStyle = l.TextStyle
	return container.New(&linesLayout{probe: probe}, l)
}

// linesLayout gives its one object the whole room and a minimum height of
// its probe's (a label of n lines, measured in the current theme).
type linesLayout struct{ probe *widget.Label }

func (l *linesLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	m := objs[0].MinSize()
	return fyne.NewSize(m.Width, max(m.Height, l.probe.MinSize().Height))
}

func (l *linesLayout) Layout(objs []fyne.CanvasObject, s fyne.Size) {
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(s)
}
