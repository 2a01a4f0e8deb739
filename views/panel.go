package views

import (
	"fyne.io/fyne/v2"

	"loupe/format"
	"loupe/session"
	"loupe/viz"
)

// Panel is one tab of the window. The app keeps a list of them and draws
// the one on screen from the session's View; exports, --tab and the
// lesson's chapters find a panel by its Name or Tab. Adding a panel is
// one file here and one line in the app's list.
type Panel interface {
	Exporter                           // its figure and CSV (and the widget, for a PNG of what it shows)
	Tab() string                       // the tab's title: "Next token"
	Name() string                      // the name exports, --tab and --export use: "next-token"
	Object() fyne.CanvasObject         // what the tab holds
	ShowView(v session.View)           // draw the selection of v (Show is fyne's: visibility)
	Parts() []fyne.CanvasObject        // the objects it lays out, for a layout report
	SetCount(n format.Numbering)       // count layers and heads as n (View › Count)
	SetTheme(th func() viz.Theme)      // draw the figures with th()
	SetOnExport(f func(format string)) // where the export buttons go
}

// Compacter is a panel with a shorter form for projector mode: there the
// figure is what the class looks at and the lesson card carries the
// explanation, so Compact(true) hides the long detail paragraphs and
// leaves the title, the figure and a one-line "how to read it" that fit
// 1,366 × 768 at projector type. Compact(false) restores the full panel.
// The app calls it on every panel of its list when projector mode switches.
type Compacter interface {
	Compact(on bool)
}

// panelBase is what every panel has: how it counts layers and heads
// (View › Count layers and heads from 1 / from 0: viz.FromOne, as the
// article does, or viz.FromZero, as in code; token positions are counted
// from 0 either way), the theme of its figures, and where its export
// buttons go. The app sets them on every panel of its list.
type panelBase struct {
	count       counting
	FigureTheme func() viz.Theme    // of the figures, on screen and exported (nil: dark, counted from 1)
	OnExport    func(format string) // an export button: "png", "svg" or "csv"
}

// SetCount makes the panel count layers and heads as n.
func (c *panelBase) SetCount(n format.Numbering) { c.count = counting{n} }

// SetTheme makes the panel draw its figures with th().
func (c *panelBase) SetTheme(th func() viz.Theme) { c.FigureTheme = th }

// SetOnExport sends the panel's export buttons to f.
func (c *panelBase) SetOnExport(f func(format string)) { c.OnExport = f }

// layerHead is "layer 19, head 2" for indices (18, 1) when counting from 1.
func (c *panelBase) layerHead(l, h int) string { return c.count.Layer(l) + ", " + c.count.Head(h) }

// countIndex names index i as the panel counts (for an Axes' Row and Col).
func (c *panelBase) countIndex(i int) string { return c.count.Index(i) }

// parts are the objects a container lays out, for Parts.
func parts(c *fyne.Container) []fyne.CanvasObject {
	if c == nil {
		return nil
	}
	return c.Objects
}

// tokenAt is the selected token of v; false when none is.
func tokenAt(v session.View) (int, bool) {
	return v.Query, v.Query >= 0 && v.Query < len(v.Tokens)
}
