package app

import (
	"encoding/json"
	"fmt"
	"os"

	"fyne.io/fyne/v2"
	"github.com/go-gl/glfw/v3.4/glfw"

	"loupe/lesson"
	"loupe/views"
)

// The layout report (--layout-report): every text, token, button, figure
// and the lesson card of the window, in screen pixels, with whether it is
// drawn, cut, an answer to the chapter's question or a written token. A
// check reads it to find what a class would not see.

type layoutRect struct {
	W int `json:"w"`
	H int `json:"h"`
}

type layoutWindow struct {
	X int `json:"x"`
	Y int `json:"y"`
	W int `json:"w"`
	H int `json:"h"`
}

type layoutObject struct {
	Kind      string `json:"kind"`
	Panel     string `json:"panel"`
	Text      string `json:"text"`
	X         int    `json:"x"`
	Y         int    `json:"y"`
	W         int    `json:"w"`
	H         int    `json:"h"`
	Visible   bool   `json:"visible"`
	Clipped   bool   `json:"clipped"`
	Answer    bool   `json:"answer"`
	Generated bool   `json:"generated"`
}

type layoutReport struct {
	Screen    layoutRect     `json:"screen"`
	Window    layoutWindow   `json:"window"`
	Chapter   *string        `json:"chapter"`
	Projector bool           `json:"projector"`
	Guessing  bool           `json:"guessing"`
	Objects   []layoutObject `json:"objects"`
}

// layout is the report of the window as it is drawn now.
func (u *UI) layout() layoutReport {
	c := u.win.Canvas()
	scale := c.Scale()
	px := func(v float32) int { return int(v*scale + 0.5) }
	r := layoutReport{Projector: u.lessonMode.projector, Guessing: u.lessonMode.on && u.lessonMode.asking}
	r.Window = windowGeometry(c.Size(), scale)
	r.Screen = screenSize(r.Window)
	var ch *lesson.Chapter
	if u.lessonMode.on && u.lessonMode.l != nil && u.lessonMode.i < len(u.lessonMode.l.Chapters) {
		ch = &u.lessonMode.l.Chapters[u.lessonMode.i]
		r.Chapter = &ch.ID
	}
	names := map[fyne.CanvasObject]string{u.stream: "tokens", u.lessonMode.card: "lesson", u.left: "settings", u.tabs: "tabs"}
	roots := []fyne.CanvasObject{u.stream, u.lessonMode.card, u.left, u.tabs}
	for _, p := range u.panels {
		names[p.Object()] = p.Name()
		roots = append(roots, p.Object())
	}
	for _, o := range views.Layout(c.Content(), c.Size(), roots) {
		r.Objects = append(r.Objects, layoutObject{Kind: o.Kind, Panel: names[o.Under], Text: o.Text,
			X: r.Window.X + px(o.Pos.X), Y: r.Window.Y + px(o.Pos.Y), W: px(o.Size.Width), H: px(o.Size.Height),
			Visible: o.Visible, Clipped: o.Clipped, Answer: ch != nil && u.answers(*ch, o), Generated: o.Generated})
	}
	return r
}

// answers reports whether o shows the answer to ch's question: what the
// tab the chapter talks about shows (its figures, their labels and
// numbers; not its buttons), and, for the next word, the written tokens.
func (u *UI) answers(ch lesson.Chapter, o views.Placed) bool {
	if ch.Question == "" {
		return false
	}
	if o.Kind == "token" {
		return o.Generated && ch.Show.Tab == "Next token"
	}
	for _, p := range u.panels {
		if p.Object() == o.Under {
			return o.Kind != "button" && p.Name() == panelOfTab(ch.Show.Tab)
		}
	}
	return false
}

// windowGeometry is the window's place and size in screen pixels: from
// GLFW where the window's context is current on this thread, else the
// canvas at the origin.
func windowGeometry(size fyne.Size, scale float32) (g layoutWindow) {
	g = layoutWindow{W: int(size.Width*scale + 0.5), H: int(size.Height*scale + 0.5)}
	defer func() { _ = recover() }() // a headless driver: GLFW not initialised
	if w := glfw.GetCurrentContext(); w != nil {
		g.X, g.Y = w.GetPos()
		g.W, g.H = w.GetSize()
	}
	return g
}

// screenSize is the primary monitor's size in pixels; the window's where
// none can be read (a headless driver).
func screenSize(win layoutWindow) (s layoutRect) {
	s = layoutRect{W: win.X + win.W, H: win.Y + win.H}
	defer func() { _ = recover() }()
	if m := glfw.GetPrimaryMonitor(); m != nil {
		if v := m.GetVideoMode(); v != nil {
			s = layoutRect{W: v.Width, H: v.Height}
		}
	}
	return s
}

// writeLayoutReport writes the report to --layout-report.
func (u *UI) writeLayoutReport() {
	if u.opt.LayoutReport == "" {
		return
	}
	data, err := json.MarshalIndent(u.layout(), "", " ")
	if err == nil {
		err = os.WriteFile(u.opt.LayoutReport, append(data, '\n'), 0o644)
	}
	if err != nil {
		u.fail(tr("app.err.layout_report", nil), fmt.Errorf("%s: %w", u.opt.LayoutReport, err))
		return
	}
	fmt.Println("loupe: layout report saved to", u.opt.LayoutReport)
}
