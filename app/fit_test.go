package app

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"loupe/engine/genmodel"
	"loupe/trace"
)

// screens are a teacher's laptop and a full-HD projector.
var screens = []fyne.Size{{Width: 1366, Height: 768}, {Width: 1920, Height: 1080}}

// overflow is one object drawn outside the area that holds it.
type overflow struct {
	what      string
	pos, size fyne.Position
	in        string
}

// outside walks the window's widget tree and lists every visible object
// that lies outside the window, or outside the scroll container that
// holds it in the direction that container does not scroll (a line
// clipped at the edge of the left column). The window's content must
// also fit: its minimum size is what the desktop driver widens the
// window to.
func outside(w fyne.Window) []overflow {
	size := w.Canvas().Size()
	var out []overflow
	if m := w.Content().MinSize(); m.Width > size.Width+0.5 || m.Height > size.Height+0.5 {
		out = append(out, overflow{what: "content minimum size", size: fyne.NewPos(m.Width, m.Height), in: "window"})
	}
	win := area{x1: size.Width, y1: size.Height, name: "window", horiz: true, vert: true}
	walkFit(w.Content(), fyne.NewPos(0, 0), win, &out)
	return out
}

// area is a rectangle that clips what it holds in the directions marked.
type area struct {
	x0, y0, x1, y1 float32
	horiz, vert    bool
	name           string
}

func walkFit(o fyne.CanvasObject, parent fyne.Position, a area, out *[]overflow) {
	if o == nil || !o.Visible() {
		return
	}
	p := parent.Add(o.Position())
	s := o.Size()
	if t, ok := o.(*canvas.Text); ok && t.Alignment == fyne.TextAlignLeading {
		s.Width = min(s.Width, t.MinSize().Width) // a radio or check lays its text out wider than it draws
	}
	if s.Width <= 0 || s.Height <= 0 {
		return
	}
	const eps = 0.5
	if (a.horiz && (p.X < a.x0-eps || p.X+s.Width > a.x1+eps)) || (a.vert && (p.Y < a.y0-eps || p.Y+s.Height > a.y1+eps)) {
		*out = append(*out, overflow{what: describe(o), pos: p, size: fyne.NewPos(s.Width, s.Height), in: a.name})
		return // its children overflow too: one line for it is enough
	}
	var kids []fyne.CanvasObject
	switch v := o.(type) {
	case *container.Scroll:
		inner := area{x0: p.X, y0: p.Y, x1: p.X + s.Width, y1: p.Y + s.Height, name: "scroll " + describe(v.Content)}
		inner.horiz = v.Direction == container.ScrollVerticalOnly || v.Direction == container.ScrollNone
		inner.vert = v.Direction == container.ScrollHorizontalOnly || v.Direction == container.ScrollNone
		walkFit(v.Content, p, inner, out)
		return
	case *fyne.Container:
		kids = v.Objects
	case fyne.Widget:
		kids = test.WidgetRenderer(v).Objects()
	}
	for _, k := range kids {
		walkFit(k, p, a, out)
	}
}

// describe names an object by its type and, for text, its first words.
func describe(o fyne.CanvasObject) string {
	s := fmt.Sprintf("%T", o)
	text := ""
	switch v := o.(type) {
	case *widget.Label:
		text = v.Text
	case *widget.Button:
		text = v.Text
	case *widget.Check:
		text = v.Text
	case *widget.RichText:
		text = v.String()
	}
	if text != "" {
		if len(text) > 40 {
			text = text[:40] + "…"
		}
		s += fmt.Sprintf(" %q", text)
	}
	return s
}

// assertFits resizes the window to screen, shows every tab in turn and
// fails for any object outside the window.
func assertFits(t *testing.T, u *UI, screen fyne.Size, when string) {
	t.Helper()
	onUI(func() {
		u.win.Resize(screen)
		for i, tab := range u.tabs.Items {
			u.tabs.SelectIndex(i)
			for _, o := range outside(u.win) {
				t.Errorf("%s, %v, tab %s: %s at %v size %v lies outside the %s", when, screen, tab.Text, o.what, o.pos, o.size, o.in)
			}
		}
		u.tabs.SelectIndex(0)
	})
}

func TestWindowFitsFirstLaunch(t *testing.T) {
	h := newHarness(t, Options{})
	for _, s := range screens {
		assertFits(t, h.u, s, "first launch")
	}
}

func TestWindowFitsAfterLongRun(t *testing.T) {
	h := newHarness(t, Options{})
	for i := range h.fake.vocab { // long tokens, as a real vocabulary has
		h.fake.vocab[i] = fmt.Sprintf(" CascadeType%d", i)
	}
	h.generate(strings.Repeat("My cat is purple . But my friends tell me ", 30), 400)
	for _, s := range screens {
		assertFits(t, h.u, s, "after a long run")
	}
	onUI(func() { h.u.stream.Select(10) }) // not captured: the panel offers the captured ones
	for _, s := range screens {
		assertFits(t, h.u, s, "a token without attention")
	}
}

func TestWindowFitsChatWithThinking(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tiny-qwen3")
	if err := genmodel.Write(dir, "tiny-qwen3", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, Options{Model: dir, Chat: true}, loadEngine)
	defer h.u.backend.Close()
	h.u.chatPanel.Think.SetChecked(true)
	h.generate("Why is the sky blue? Explain it to a class of twelve-year-olds.", 80)
	for _, s := range screens {
		assertFits(t, h.u, s, "after a chat turn with thinking")
	}
}

func TestWindowFitsCompare(t *testing.T) {
	h := skewHarness(t)
	h.u.st.Heads = []trace.Head{hd(1, 2), hd(3, 0), hd(2, 5), hd(0, 1)}
	h.u.switchOff()
	h.wait()
	for _, s := range screens {
		assertFits(t, h.u, s, "after a comparison")
	}
}

// The first window is cut to the screen: 1,366 × 768 at 96 dpi leaves
// 728 under the title bar; a full-HD 13-inch screen counts in Fyne units.
func TestFirstWindowFitsScreen(t *testing.T) {
	for _, c := range []struct {
		w, h, mm int
		user     float32
		want     fyne.Size
	}{
		{1366, 768, 361, 1, fyne.NewSize(1366, 728)},
		{1920, 1080, 508, 1, fyne.NewSize(1500, 940)},
		{1920, 1080, 294, 1, fyne.NewSize(1371.4286, 731.4286)}, // 166 dpi: scale 1.4 (rounded to a tenth)
		{1366, 768, 0, 0, fyne.NewSize(1366, 728)},              // size unknown: scale 1
		{0, 0, 0, 1, defaultWindow},                             // no screen: the default
	} {
		got := fitScreen(defaultWindow, c.w, c.h, c.mm, c.user)
		if d := got.Subtract(c.want); d.Width*d.Width+d.Height*d.Height > 0.01 {
			t.Errorf("%d × %d px, %d mm: window %v, want %v", c.w, c.h, c.mm, got, c.want)
		}
	}
}

// The hint under the Heads field keeps its height as it changes: the
// how-to (two lines at 1,366 px), "2 heads selected.", an error.
func TestHeadsRowKeepsItsHeight(t *testing.T) {
	h := newHarness(t, Options{})
	h.generate("My cat is purple . But my", 3)
	onUI(func() {
		h.u.win.Resize(screens[0])
		h.u.st.Heads = nil
		h.u.showHeads(true)
		before := h.u.bar.Box.MinSize().Height
		h.u.st.Heads = []trace.Head{hd(0, 1), hd(1, 2)}
		h.u.showHeads(true)
		if got := h.u.bar.Box.MinSize().Height; got != before {
			t.Errorf("the heads bar is %v high with the how-to, %v with two heads selected", before, got)
		}
		h.u.headsTyped("1:")
		if got := h.u.bar.Box.MinSize().Height; got != before {
			t.Errorf("the heads bar is %v high with the how-to, %v with an error (%q)", before, got, h.u.bar.Help.Text)
		}
	})
}

// Projector mode (type 1.5 × larger, the settings column hidden) fits a
// 1,366 × 768 projector and a full-HD one too.
func TestWindowFitsProjectorMode(t *testing.T) {
	h := newHarness(t, Options{})
	h.generate("My cat is purple . But my", 12)
	onUI(func() { h.u.lessonMode.setProjector(true) })
	for _, s := range screens {
		assertFits(t, h.u, s, "projector mode")
	}
	onUI(func() { h.u.lessonMode.openLesson() })
	for _, s := range screens {
		assertFits(t, h.u, s, "projector mode with the lesson card")
	}
	onUI(func() { h.u.lessonMode.closeLesson(); h.u.lessonMode.setProjector(false) })
}

// The lesson card outside projector mode fits as well: it must not add its
// height to the panels'.
func TestWindowFitsLessonCard(t *testing.T) {
	h := newHarness(t, Options{})
	h.generate("My cat is purple . But my", 12)
	onUI(func() { h.u.lessonMode.openLesson() })
	for _, s := range screens {
		assertFits(t, h.u, s, "the lesson card")
	}
	onUI(h.u.lessonMode.closeLesson)
}

// A reopened session (two runs, a comparison, an open head) fits too.
func TestWindowFitsOpenedSession(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "model")
	os.MkdirAll(model, 0o755)
	os.WriteFile(filepath.Join(model, "config.json"), []byte(`{"hidden_size": 8}`), 0o644)
	os.WriteFile(filepath.Join(model, "model.safetensors"), append([]byte{4, 0, 0, 0, 0, 0, 0, 0}, "{}  "...), 0o644)
	info := func(i *trace.ModelInfo) { i.Path = model }
	h := newHarness(t, Options{Model: model})
	h.fake.info = info
	h.u.st.Info = h.fake.Info()
	h.generate(strings.Repeat("My cat is purple . But my friends tell me ", 8), 60)
	h.u.st.Heads = []trace.Head{hd(1, 2), hd(3, 0)}
	h.u.switchOff()
	h.wait()
	s, err := h.u.sessionFile.session()
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(s)
	path := filepath.Join(dir, "s.json")
	os.WriteFile(path, data, 0o644)

	h2 := newHarness(t, Options{Model: model})
	h2.fake.info = info
	h2.u.st.Info = h2.fake.Info()
	h2.u.sessionFile.openSession(path)
	h2.wait() // A
	h2.wait() // B
	if _, ok := h2.u.compare.Comparison(); !ok {
		t.Fatal("the session's comparison was not restored")
	}
	for _, s := range screens {
		assertFits(t, h2.u, s, "an opened session")
	}
}
