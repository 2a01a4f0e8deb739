package views

import (
	"fyne.io/fyne/v2"

	"loupe/format"
	"loupe/session"
)

// Panel is one tab of the window. The app keeps a list of them and draws
// the one on screen from the session's View; exports, --tab and the
// lesson's chapters find a panel by its Name or Tab. Adding a panel is
// one file here and one line in the app's list.
type Panel interface {
	Exporter                     // its figure and CSV (and the widget, for a PNG of what it shows)
	Tab() string                 // the tab's title: "Next token"
	Name() string                // the name exports, --tab and --export use: "next-token"
	Object() fyne.CanvasObject   // what the tab holds
	ShowView(v session.View)     // draw the selection of v (Show is fyne's: visibility)
	Parts() []fyne.CanvasObject  // the objects it lays out, for a layout report
	SetCount(n format.Numbering) // count layers and heads as n (View › Count)
}

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
