package app

import (
	"html"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"bytes"
	"context"
	"loupe/assets"
	"loupe/cli"
	"loupe/engine"
	"loupe/engine/genmodel"
	"loupe/lesson"
	"loupe/lesson/page"
	"loupe/trace"
	"loupe/viz"
)

// lessonHarness opens the lesson on a real model and waits for the run it
// generates.
func lessonHarness(t *testing.T, dir string) *harness {
	t.Helper()
	h := newHarnessWith(t, Options{Model: dir}, loadEngine)
	t.Cleanup(func() { h.u.backend.Close() })
	onUI(func() { h.u.controls.MaxTokens.SetText("8"); h.u.lessonMode.openLesson() })
	h.wait()
	if h.u.lessonMode.l == nil {
		t.Fatalf("no lesson after the run: %v / %s", h.u.lessonMode.err, h.u.lessonMode.card.Text.Text)
	}
	return h
}

// Every chapter, on the demo model and on a generated Qwen3.5, puts its
// title and text on the card (never a placeholder) and sets the tab, the
// token, the source and the layer or head it talks about, with data there.
func TestLessonStepsThroughEveryChapter(t *testing.T) {
	demo, err := assets.DemoModelDir()
	if err != nil {
		t.Skip("no demo model:", err)
	}
	q35 := t.TempDir()
	if err := genmodel.Write(q35, "tiny-qwen35", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{demo, q35} {
		h := lessonHarness(t, dir)
		u := h.u
		if got := u.controls.Prompt.Text; got != assets.DemoPrompts[0] {
			t.Errorf("the lesson ran %q, want the article's sentence in an empty prompt box", got)
		}
		for i, ch := range u.lessonMode.l.Chapters {
			onUI(func() { u.lessonMode.goChapter(i) })
			c := u.lessonMode.card
			if c.Title.Text != ch.Title || c.Text.Text != ch.Text || c.Count.Text != strconv.Itoa(i+1)+" / 15" {
				t.Errorf("%s: card %q %q %q", ch.ID, c.Title.Text, c.Text.Text, c.Count.Text)
			}
			for _, bad := range []string{"NaN", "–", "%!", "<nil>"} {
				if strings.Contains(ch.Text, bad) {
					t.Errorf("%s: %q in %q", ch.ID, bad, ch.Text)
				}
			}
			if sel := u.tabs.Selected(); sel == nil || sel.Text != ch.Show.Tab {
				t.Errorf("%s: tab %v, want %q", ch.ID, sel, ch.Show.Tab)
			}
			if q := ch.Show.Query; q >= 0 && u.st.Query != q {
				t.Errorf("%s: selected token %d, want %d", ch.ID, u.st.Query, q)
			}
			if want := ch.Show.Query >= 0; u.stream.Focused() != want {
				t.Errorf("%s: the stream dims the other tokens: %v, want %v", ch.ID, u.stream.Focused(), want)
			}
			checkChapterPanel(t, u, ch)
		}
		onUI(u.lessonMode.closeLesson)
		if u.stream.Focused() {
			t.Error("the stream still dims its tokens after the lesson closed")
		}
	}
}

// checkChapterPanel: the panel a chapter opens has its data.
func checkChapterPanel(t *testing.T, u *UI, ch lesson.Chapter) {
	t.Helper()
	s := ch.Show
	switch s.Tab {
	case "Attention":
		if !u.attn.HasData() {
			t.Errorf("%s: the attention panel is empty: %s", ch.ID, u.attn.Title.Text)
		}
		if s.Source >= 0 && u.attn.Source() != s.Source {
			t.Errorf("%s: source %d, want %d", ch.ID, u.attn.Source(), s.Source)
		}
		if s.Head >= 0 {
			if l, hd := u.attn.OpenedHead(); l != s.Layer || hd != s.Head {
				t.Errorf("%s: open head %d:%d, want %d:%d", ch.ID, l, hd, s.Layer, s.Head)
			}
		}
	case "MLP":
		if m, ok := u.mlp.Shown(); !ok || m.Layer != s.Layer {
			t.Errorf("%s: MLP panel shows layer %d (%v), want %d", ch.ID, m.Layer, ok, s.Layer)
		}
	case "Next token":
		if _, ok := u.next.Step(); !ok {
			t.Errorf("%s: no step on the Next token tab", ch.ID)
		}
	case "Timing":
		if len(u.st.Timings) == 0 {
			t.Errorf("%s: no timing", ch.ID)
		}
	case "KV cache":
		if l, _ := u.inside.kv.Chosen(); l != s.Layer {
			t.Errorf("%s: KV layer %d, want %d", ch.ID, l, s.Layer)
		}
	}
}

// Let the class guess: the output chapter asks first with its tab
// hidden; the next key shows the answer and the top-10.
func TestLessonAsksBeforeRevealing(t *testing.T) {
	demo, err := assets.DemoModelDir()
	if err != nil {
		t.Skip("no demo model:", err)
	}
	h := lessonHarness(t, demo)
	u := h.u
	out := lesson.Index(lesson.Output)
	onUI(func() {
		u.lessonMode.goChapter(out - 1)
		u.lessonMode.card.Guess.SetChecked(true)
		u.typedKey(&fyne.KeyEvent{Name: fyne.KeyRight})
	})
	c := u.lessonMode.card
	if u.lessonMode.i != out || !c.Asking.Visible() || c.Text.Visible() || !strings.Contains(c.Asking.Text, "Which word comes after") {
		t.Fatalf("chapter %d, asking %v %q, text shown %v", u.lessonMode.i, c.Asking.Visible(), c.Asking.Text, c.Text.Visible())
	}
	if u.tabs.Visible() || !u.stream.HidesWritten() {
		t.Error("the top-10 is on screen before the class has guessed")
	}
	onUI(func() { u.typedKey(&fyne.KeyEvent{Name: fyne.KeySpace}) })
	if u.lessonMode.i != out || c.Asking.Visible() || !c.Text.Visible() || u.tabs.Selected().Text != "Next token" {
		t.Errorf("after the key: chapter %d, asking %v, tab %s", u.lessonMode.i, c.Asking.Visible(), u.tabs.Selected().Text)
	}
	onUI(func() { u.lessonMode.goChapter(lesson.Index(lesson.Attention)) })
	if !strings.Contains(c.Text.Text, "layer 4, head") {
		t.Errorf("counted from 1: %q", c.Text.Text)
	}
	onUI(func() { u.setNumbering(viz.FromZero) })
	if !strings.Contains(c.Text.Text, "layer 3, head") {
		t.Errorf("View › Count from 0 left the card as it was: %q", c.Text.Text)
	}
	onUI(func() { u.setNumbering(viz.FromOne); u.lessonMode.goChapter(out) })
	onUI(func() { u.typedKey(&fyne.KeyEvent{Name: fyne.KeyPageUp}) })
	if u.lessonMode.i != out-1 {
		t.Errorf("PageUp: chapter %d, want %d", u.lessonMode.i, out-1)
	}
	onUI(func() { u.typedKey(&fyne.KeyEvent{Name: fyne.KeyL}) })
	if u.lessonMode.on || c.Visible() {
		t.Error("L did not close the lesson")
	}
}

// Projector mode: light theme, type 1.5 × larger, settings pane hidden,
// not remembered across launches; off restores the pane, the theme and
// the window's size.
func TestProjectorMode(t *testing.T) {
	h := newHarness(t, Options{})
	u := h.u
	u.app.Preferences().SetBool(prefProjector, true) // as an older launch left it
	before := u.app.Settings().Theme().Size("text")
	size := u.win.Canvas().Size()
	onUI(func() { u.typedKey(&fyne.KeyEvent{Name: fyne.KeyF11}) })
	th := u.app.Settings().Theme()
	if got := th.Size("text"); got < 1.5*before {
		t.Errorf("projector type %v, window's %v", got, before)
	}
	if u.left.Visible() || u.app.Preferences().Bool(prefProjector) {
		t.Error("the settings pane is shown or projector mode is remembered for the next launch")
	}
	onUI(u.lessonMode.toggleProjector)
	if !u.left.Visible() || u.app.Settings().Theme().Size("text") != before || u.app.Preferences().Bool(prefProjector) {
		t.Error("projector off did not restore the window")
	}
	if got := u.win.Canvas().Size(); got != size {
		t.Errorf("window %v after projector mode, %v before", got, size)
	}
}

func TestLessonFlags(t *testing.T) {
	o, err := ParseFlags([]string{"--lesson-chapter", "kv-cache", "--projector"}, nil)
	if err != nil || !o.Lesson || o.LessonChapter != "kv-cache" || !o.Projector {
		t.Errorf("%+v %v", o, err)
	}
	if _, err := ParseFlags([]string{"--lesson", "--lesson-chapter", "heads"}, nil); err == nil || !strings.Contains(err.Error(), "kv-cache") {
		t.Errorf("an unknown chapter: %v", err)
	}
}

// TestLessonChapterList: --lesson-chapter's error lists exactly the
// chapter ids its help lists, every chapter the lesson has among them.
func TestLessonChapterList(t *testing.T) {
	help := windowFlags(&Options{}).Lookup("lesson-chapter").Usage
	_, err := ParseFlags([]string{"--lesson", "--lesson-chapter", "heads"}, nil)
	if err == nil {
		t.Fatal("--lesson-chapter heads accepted")
	}
	ids := func(s, after string) []string {
		_, list, ok := strings.Cut(s, after)
		if !ok {
			t.Fatalf("%q lacks %q", s, after)
		}
		return strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == '(' || r == ')' })
	}
	inHelp, inError := ids(help, "shown first: "), ids(err.Error(), "want one of ")
	if !slices.Equal(inHelp, inError) {
		t.Errorf("help lists %q, the error %q", inHelp, inError)
	}
	for _, id := range append(slices.Clone(lesson.IDs), lesson.Experts) {
		if !slices.Contains(inHelp, id) {
			t.Errorf("the help does not list %q: %q", id, help)
		}
	}
}

// Run these measurements: a chapter that needs runs says what they are
// and how long they take; once they have run it has its numbers.
func TestLessonMeasures(t *testing.T) {
	demo, err := assets.DemoModelDir()
	if err != nil {
		t.Skip("no demo model:", err)
	}
	h := lessonHarness(t, demo)
	u := h.u
	cf := lesson.Index(lesson.Counterfactual)
	onUI(func() { u.lessonMode.goChapter(cf) })
	c := u.lessonMode.card
	if !c.Measure.Visible() || !strings.Contains(c.Plan.Text, "heads that fetch the source off") || !strings.Contains(c.Plan.Text, "about ") {
		t.Fatalf("plan %q, button shown %v", c.Plan.Text, c.Measure.Visible())
	}
	onUI(func() { u.lessonMode.measureLesson() })
	h.wait()
	ch := u.lessonMode.l.Chapters[cf]
	if ch.Skipped != "" || c.Measure.Visible() || !strings.Contains(c.Text.Text, "goes from") {
		t.Fatalf("after the runs: skipped %q, text %q", ch.Skipped, c.Text.Text)
	}
	if cm := u.lessonMode.l.Chapter(lesson.ComputeMemory); cm.Skipped != "" || len(cm.Figures.(lesson.ComputeFigures).Runs) == 0 {
		t.Errorf("compute-memory: %+v", cm)
	}
	if u.st.Running || u.lessonMode.run != u.st.LastRun {
		t.Error("the window is still busy or the lesson tells another run")
	}
	// The runs join Compare's history and Timing, named; the
	// counterfactual's pair is compared: the lesson's run and the one with
	// the heads switched off.
	e := u.lessonMode.extra
	if len(e.Runs) < 2 {
		t.Fatalf("%d runs kept from the measurements", len(e.Runs))
	}
	for _, r := range e.Runs {
		if !slices.Contains(u.st.Runs, r) || !strings.Contains(r.Origin, "(lesson)") {
			t.Errorf("run %q is not in the history", r.Origin)
		}
	}
	if n := len(u.st.Timings); n < len(e.Runs)+1 || !strings.Contains(u.st.Labels[n-1], "heads switched off (lesson)") {
		t.Errorf("Timing: %d runs, labels %q", n, u.st.Labels)
	}
	a, b, ok := u.st.Pair()
	if !ok || a != u.lessonMode.run || len(b.Settings.Ablate) == 0 {
		t.Errorf("Compare's pair after the counterfactual: %v; want the lesson's run and the run with the heads off", ok)
	}
}

// File › Save lesson… writes one page with every chapter's text and a
// figure beside it for each, none of them blank.
func TestSaveLessonPage(t *testing.T) {
	demo, err := assets.DemoModelDir()
	if err != nil {
		t.Skip("no demo model:", err)
	}
	h := lessonHarness(t, demo)
	u := h.u
	path := filepath.Join(t.TempDir(), "class.html")
	var kv trace.KVRows
	onUI(func() { kv = u.lessonMode.lessonKV(u.lessonMode.in) })
	if len(kv.Keys) != u.lessonMode.in.Inspect.Pos+1 {
		t.Errorf("kv-cache figure from %d rows, want the prompt's %d", len(kv.Keys), u.lessonMode.in.Inspect.Pos+1)
	}
	var err2 error
	onUI(func() { err2 = u.lessonMode.writeHandout(path, time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)) })
	if err2 != nil {
		t.Fatal(err2)
	}
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2 December 2026", "My cat is purple.", u.st.Info.Name} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, ch := range u.lessonMode.l.Chapters {
		if !strings.Contains(string(doc), html.EscapeString(ch.Title)) {
			t.Errorf("%s: title missing from the page", ch.ID)
		}
		if ch.Skipped != "" && !strings.Contains(string(doc), `src="class-`+ch.ID+`.png"`) {
			continue // its runs are not made: it may have no figure yet
		}
		if !strings.Contains(string(doc), `src="class-`+ch.ID+`.png"`) {
			t.Errorf("%s: figure missing from the page", ch.ID)
		}
		f, err := os.Open(filepath.Join(filepath.Dir(path), "class-"+ch.ID+".png"))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil || uniform(img) {
			t.Errorf("%s: figure %v, blank %v", ch.ID, err, err == nil && uniform(img))
		}
	}
}

// File › Save lesson… and `loupe lesson --html` write the same page and
// the same figures for the same run: the window tells it from the run's
// captures, the command from the last prompt token inspected afresh.
func TestHandoutSameAsCommandLine(t *testing.T) {
	demo, err := assets.DemoModelDir()
	if err != nil {
		t.Skip("no demo model:", err)
	}
	h := lessonHarness(t, demo)
	u := h.u
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	win, cmd := filepath.Join(t.TempDir(), "class.html"), filepath.Join(t.TempDir(), "class.html")
	var werr error
	onUI(func() { werr = u.lessonMode.writeHandout(win, now) })
	if werr != nil {
		t.Fatal(werr)
	}
	m := u.backend.(*engine.Model)
	run := u.st.LastRun
	ids := m.Encode(run.Prompt)
	insp, err := m.Inspect(context.Background(), ids, len(ids)-1, engine.InspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := cli.LessonInput(m, run, insp, u.st.Count == viz.FromZero)
	if err := page.Write(cmd, in, page.KV(in, m), now); err != nil {
		t.Fatal(err)
	}
	names := []string{"class.html"}
	for _, ch := range u.lessonMode.l.Chapters {
		if _, err := os.Stat(filepath.Join(filepath.Dir(win), "class-"+ch.ID+".png")); err == nil || ch.Skipped == "" {
			names = append(names, "class-"+ch.ID+".png") // a chapter whose runs are not made may have none
		}
	}
	for _, name := range names {
		a, errA := os.ReadFile(filepath.Join(filepath.Dir(win), name))
		b, errB := os.ReadFile(filepath.Join(filepath.Dir(cmd), name))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: the window's and the command line's differ (%d and %d bytes; %v, %v)", name, len(a), len(b), errA, errB)
		}
	}
}
