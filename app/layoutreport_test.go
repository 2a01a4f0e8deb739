package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"loupe/assets"
	"loupe/engine/genmodel"
	"loupe/i18n"
	"loupe/lesson"
	"loupe/views"
)

// answerObjects are the report's objects that answer the chapter's
// question, and those of them drawn.
func answerObjects(r layoutReport) (all, shown []layoutObject) {
	for _, o := range r.Objects {
		if o.Answer {
			all = append(all, o)
			if o.Visible {
				shown = append(shown, o)
			}
		}
	}
	return all, shown
}

// Let the class guess, for every chapter with a question, coming from the
// chapter after it (backwards) and from the one before: the report lists
// the answer's objects and none is drawn; the next key draws them.
func TestLayoutReportHidesAnswersWhileGuessing(t *testing.T) {
	demo, err := assets.DemoModelDir()
	if err != nil {
		t.Skip("no demo model:", err)
	}
	h := lessonHarness(t, demo)
	u := h.u
	asked := 0
	for i, ch := range u.lessonMode.l.Chapters {
		if ch.Question == "" {
			continue
		}
		for _, from := range []int{i + 1, i - 1} {
			var r layoutReport
			onUI(func() {
				u.lessonMode.setGuess(false)
				u.lessonMode.goChapter(from)
				u.lessonMode.setGuess(true)
				u.lessonMode.goChapter(i)
				r = u.layout()
			})
			all, shown := answerObjects(r)
			if !r.Guessing || r.Chapter == nil || *r.Chapter != ch.ID {
				t.Fatalf("%s from %d: guessing %v, chapter %v", ch.ID, from, r.Guessing, r.Chapter)
			}
			if len(all) == 0 {
				t.Errorf("%s from %d: no answer object listed", ch.ID, from)
			}
			for _, o := range shown {
				t.Errorf("%s from %d: answer visible while guessing: %+v", ch.ID, from, o)
			}
			onUI(func() { u.typedKey(&fyne.KeyEvent{Name: fyne.KeySpace}); r = u.layout() })
			if _, shown := answerObjects(r); r.Guessing || len(shown) == 0 {
				t.Errorf("%s from %d: after the key, guessing %v and %d answer objects drawn", ch.ID, from, r.Guessing, len(shown))
			}
		}
		asked++
	}
	if asked == 0 {
		t.Fatal("no chapter asks a question")
	}
}

// The report of the headless window: every kind the window shows is
// there, in the window, and the JSON has the fields a check reads.
func TestLayoutReportFields(t *testing.T) {
	demo, err := assets.DemoModelDir()
	if err != nil {
		t.Skip("no demo model:", err)
	}
	h := lessonHarness(t, demo)
	u := h.u
	onUI(func() { u.lessonMode.goChapter(lesson.Index(lesson.Grid)) })
	out := filepath.Join(t.TempDir(), "layout.json")
	u.opt.LayoutReport = out
	onUI(u.writeLayoutReport)
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"screen", "window", "chapter", "projector", "guessing", "objects"} {
		if _, ok := r[k]; !ok {
			t.Errorf("no %q in the report", k)
		}
	}
	rep := u.layout()
	if rep.Window.W < 1000 || rep.Window.H < 600 || rep.Screen.W < rep.Window.X+rep.Window.W {
		t.Errorf("window %+v on screen %+v", rep.Window, rep.Screen)
	}
	kinds := map[string]int{}
	for _, o := range rep.Objects {
		if o.Visible {
			kinds[o.Kind]++
			if o.X < rep.Window.X || o.Y < rep.Window.Y || o.X+o.W > rep.Window.X+rep.Window.W+1 || o.Y+o.H > rep.Window.Y+rep.Window.H+1 {
				t.Errorf("visible outside the window: %+v", o)
			}
		}
	}
	for _, k := range []string{"text", "token", "card", "button", "figure"} {
		if kinds[k] == 0 {
			t.Errorf("no visible %s in the report (%v)", k, kinds)
		}
	}
	if *rep.Chapter != lesson.Grid {
		t.Errorf("chapter %v", *rep.Chapter)
	}
}

// tabTitles are the titles of the window's tabs, in order.
func tabTitles(u *UI) []string {
	var s []string
	for _, it := range u.tabs.Items {
		s = append(s, it.Text)
	}
	return s
}

// Tabs only for what the model has: no DeltaNet tab on a model without
// Gated DeltaNet layers, one on Qwen3.5, and none again once a dense
// model is opened after it.
func TestDeltaNetTabOnlyOnHybridModels(t *testing.T) {
	q35 := t.TempDir()
	if err := genmodel.Write(q35, "tiny-qwen35", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, Options{Model: q35}, loadEngine)
	t.Cleanup(func() { h.u.backend.Close() })
	if !slices.Contains(tabTitles(h.u), "DeltaNet") {
		t.Errorf("Qwen3.5: tabs %v, want a DeltaNet tab", tabTitles(h.u))
	}
	dense := t.TempDir()
	if err := genmodel.Write(dense, "tiny", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	onUI(func() { h.u.openModel(dense) })
	h.wait()
	if got := tabTitles(h.u); slices.Contains(got, "DeltaNet") {
		t.Errorf("a dense model: tabs %v, want no DeltaNet tab", got)
	}
}

// --guess opens the lesson; --layout-report needs the --screenshot it is
// written beside.
func TestGuessAndLayoutReportFlags(t *testing.T) {
	o, err := ParseFlags([]string{"--guess", "--lesson-chapter", "grid", "--screenshot", "a.png", "--layout-report", "a.json"}, nil)
	if err != nil || !o.Guess || !o.Lesson || o.LayoutReport != "a.json" {
		t.Errorf("%+v %v", o, err)
	}
	if _, err := ParseFlags([]string{"--layout-report", "a.json"}, nil); err == nil {
		t.Error("--layout-report without --screenshot: no error")
	}
}

// In projector mode at 1366 × 768 (less the window's menu bar, 43 pixels
// under Xvfb) every chapter's card fits its column: no text, button or
// the card itself is cut, the longest ones (the timing chapters with their
// ▶ Measure) included; nothing of the attention panel runs off the
// window's right edge; and no text or button of the chapter's panel is
// cut (the KV cache tab's totals at the scroll's edge, the Next token
// tab's caption at the window's bottom, before the panels' compact form).
func TestProjectorCardsFit(t *testing.T) {
	demo, err := assets.DemoModelDir()
	if err != nil {
		t.Skip("no demo model:", err)
	}
	old := views.Lang
	t.Cleanup(func() { views.Lang = old })
	// French runs about 20 % longer: wider buttons, more lines.
	for _, lang := range []i18n.Lang{i18n.English, i18n.French} {
		views.Lang = lang // before the panels are built, as --lang
		t.Run(string(lang), func(t *testing.T) { projectorChaptersFit(t, demo) })
	}
}

// projectorChaptersFit steps through every chapter in projector mode and
// reports what cutInProjector finds.
func projectorChaptersFit(t *testing.T, demo string) {
	h := lessonHarness(t, demo)
	u := h.u
	onUI(func() {
		u.lessonMode.setProjector(true)
		u.win.Resize(fyne.NewSize(1366, 768-43))
	})
	t.Cleanup(func() { onUI(func() { u.lessonMode.setProjector(false) }) })
	for i, ch := range u.lessonMode.l.Chapters {
		var r layoutReport
		onUI(func() {
			u.lessonMode.goChapter(i)
			// The real driver lays out what changed before it draws; the
			// test driver only on a resize.
			for range 3 {
				relayout(u.win.Content())
			}
		})
		onUI(func() { r = u.layout() })
		for _, o := range r.Objects {
			if cutInProjector(o, r.Window.W) {
				t.Errorf("%s: clipped %s %q at %d,%d %d×%d", ch.ID, o.Kind, o.Text, o.X, o.Y, o.W, o.H)
			}
		}
		if !slices.ContainsFunc(r.Objects, func(o layoutObject) bool { return o.Panel == "lesson" && o.Kind == "card" && o.Visible }) {
			t.Errorf("%s: no card drawn", ch.ID)
		}
	}
}

// cutInProjector: a visible object of the report that the class would
// not see whole: the card or anything on it, a text or button of a panel
// with a compact form (views.Compacter),
// or a part of the attention panel past the window's right edge (its
// grid's head list scrolls inside the panel).
func cutInProjector(o layoutObject, winW int) bool {
	if !o.Visible || !o.Clipped {
		return false
	}
	switch o.Panel {
	case "lesson":
		return true
	case "attention":
		return o.X+o.W > winW
	}
	// The panels with a compact form. (The test driver lays the Model
	// tab's kernels line lower than the real driver does, past 725
	// pixels; scripts/e2e-layout.sh checks the other panels for real.)
	return (o.Panel == "kv-cache" || o.Panel == "next-token") && (o.Kind == "text" || o.Kind == "button")
}

// relayout lays every container and widget under o out again at its size,
// parents first, as the real driver does before drawing a changed canvas.
func relayout(o fyne.CanvasObject) {
	switch c := o.(type) {
	case *fyne.Container:
		if c.Layout != nil {
			c.Layout.Layout(c.Objects, c.Size())
		}
		for _, k := range c.Objects {
			relayout(k)
		}
	case fyne.Widget:
		r := test.WidgetRenderer(c)
		if r == nil {
			return
		}
		r.Layout(c.Size())
		for _, k := range r.Objects() {
			relayout(k)
		}
	}
}

// An MoE model's experts chapter, the longest card, fits projector mode's
// column at 1,366 × 768: its text, keys and Let the class guess drawn
// whole (the panels beside leave no room to widen the column, so the text
// is set a size smaller); the chapter after it in the other direction
// gets projector type back.
func TestProjectorLongCardFits(t *testing.T) {
	dir := t.TempDir()
	if err := genmodel.Write(dir, "tiny-qwen3moe", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	h := lessonHarness(t, dir)
	u := h.u
	onUI(func() {
		u.lessonMode.setProjector(true)
		u.win.Resize(fyne.NewSize(1366, 768-43))
	})
	t.Cleanup(func() { onUI(func() { u.lessonMode.setProjector(false) }) })
	for _, id := range []string{lesson.Experts, lesson.Tokens} {
		var r layoutReport
		onUI(func() {
			u.lessonMode.goChapter(lesson.Index(id))
			for range 3 {
				relayout(u.win.Content())
			}
			r = u.layout()
		})
		for _, o := range r.Objects {
			if o.Panel == "lesson" && o.Visible && o.Clipped {
				t.Errorf("%s: clipped %s %q at %d,%d %d×%d", id, o.Kind, o.Text, o.X, o.Y, o.W, o.H)
			}
		}
		if small := u.lessonMode.card.Text.SizeName == cardTextSize; small != (id == lesson.Experts) {
			t.Errorf("%s: the card's text a size smaller: %v", id, small)
		}
	}
}
