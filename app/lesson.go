package app

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"loupe/assets"
	"loupe/lesson"
	"loupe/trace"
	"loupe/views"
	"loupe/viz"
)

// lessonMode is lesson and projector mode: the card, its chapters, the measurements a chapter asks for and the handout.
type lessonMode struct {
	ui *UI
	lessonState
}

// Lesson mode: the article's walk-through told on the last run (package
// lesson), one card above the panels, each chapter setting the tab, the
// token, the source and the layer or head it talks about. Projector mode:
// full screen, light, larger type, the settings pane hidden.

// lessonState is the lesson card and what it shows.
type lessonState struct {
	card       *views.LessonCard
	bar        *fyne.Container // the Lesson and Projector buttons
	top        *fyne.Container // above the panels: bar, and the card outside projector mode
	side       *fyne.Container // projector mode: the card in the settings pane's place
	split      *container.Split
	on         bool
	l          *lesson.Lesson
	run        *trace.Run // the run l tells
	err        error      // why l could not be told
	i          int
	asking     bool          // the chapter's question is on the card, its answer not yet shown
	note       *widget.Label // in the panels' place while the class guesses
	guess      bool          // Let the class guess
	projector  bool
	leftOffset float64
	strip      *container.Split // the token strip above the panels
	stripAt    float64          // its divider before projector mode
	winSize    fyne.Size        // the window's before projector mode
	zero       bool             // l counts layers and heads from 0
	in         lesson.Input
	extra      *lesson.Extra // the timing runs (Run these measurements) …
	extraFor   *trace.Run    // … of this run
	kv         trace.KVRows  // the KV cache figure's rows, read before the timing runs …
	kvFor      *trace.Run    // … of this run
	measuring  bool
}

// guessNote stands in the panels' place while the class guesses.
func guessNote() *widget.Label {
	l := widget.NewLabel(tr("app.lesson.guess_note", nil))
	l.Alignment = fyne.TextAlignCenter
	l.Hide()
	return l
}

// newLessonArea puts the buttons above the panels and makes the (hidden)
// card, which placeCard puts in the left column.
func (fc *lessonMode) newLessonArea(panels fyne.CanvasObject) fyne.CanvasObject {
	u := fc.ui
	c := views.NewLessonCard()
	c.OnGo = func(i int) { defer u.rescue(); u.lessonMode.goChapter(i) }
	c.OnGuess = func(on bool) { defer u.rescue(); u.lessonMode.setGuess(on) }
	c.OnClose = u.guard(u.lessonMode.closeLesson)
	c.OnMeasure = u.guard(u.lessonMode.measureLesson)
	c.Hide()
	u.lessonMode.card = c
	lessonBtn := widget.NewButtonWithIcon(tr("app.lesson.button", nil), theme.DocumentIcon(), u.guard(u.lessonMode.toggleLesson))
	projBtn := widget.NewButtonWithIcon(tr("app.projector.button", nil), theme.ViewFullScreenIcon(), u.guard(u.lessonMode.toggleProjector))
	lessonBtn.Importance, projBtn.Importance = widget.LowImportance, widget.LowImportance
	u.lessonMode.bar = container.NewHBox(lessonBtn, projBtn, layout.NewSpacer())
	u.lessonMode.top = container.NewVBox(u.lessonMode.bar)
	u.lessonMode.side = container.NewVBox(c)
	return container.NewBorder(u.lessonMode.top, nil, nil, nil, panels)
}

// placeCard puts the card in the left column, where a class reads it
// beside the panels: in the settings' place while the lesson is open, or in
// projector mode in a column of its own where the settings pane was.
// Above the panels it added its height to theirs and the window grew past
// a 768-pixel screen.
func (fc *lessonMode) placeCard(projector bool) {
	u := fc.ui
	c := u.lessonMode.card
	u.lessonMode.side.Remove(c)
	c.SetNarrow(true)
	u.lessonMode.side.Add(c)
	// In projector mode the chapter menu goes: it repeats the title above
	// it, and its row pushed the longer chapters below a 768-pixel
	// screen; the keys (← →) step through them.
	c.Chapters.Hidden = projector
	// The title at projector type is as large as a heading; a sub-heading
	// 1.5 × larger took three lines of the column.
	c.Title.SizeName = theme.SizeNameSubHeadingText
	if projector {
		c.Title.SizeName = theme.SizeNameText
	}
	c.Title.Refresh()
	if projector {
		u.lessonMode.bar.Hide() // keyboard only
		u.bar.Box.Hide()        // the ablation tools: not a slide's
		u.lessonMode.split.Leading = container.NewVScroll(u.lessonMode.side)
		u.lessonMode.split.Offset = cardColumn
		u.lessonMode.split.Refresh()
		u.lessonMode.fitCardColumn()
		return
	}
	u.lessonMode.bar.Show()
	u.bar.Box.Show()
	u.lessonMode.split.Leading = u.left
	if u.lessonMode.on {
		// The card alone (the settings come back with L): beneath it,
		// a fixed share of the column cut the longer chapters' text and
		// their Measure button, and the settings' last row was cut at
		// the window's edge.
		u.lessonMode.split.Leading = container.NewVScroll(u.lessonMode.side)
	}
	u.lessonMode.split.Refresh()
	u.lessonMode.fitCardColumn() // the card's text back at the window's type
}

// toggleLesson opens or closes the card (L, View › Lesson, the button).
func (fc *lessonMode) toggleLesson() {
	u := fc.ui
	if u.lessonMode.on {
		u.lessonMode.closeLesson()
	} else {
		u.lessonMode.openLesson()
	}
}

// openLesson shows the card; without a finished run it generates one
// (with the article's sentence when the prompt box is empty).
func (fc *lessonMode) openLesson() {
	u := fc.ui
	u.lessonMode.on = true
	u.lessonMode.card.Show()
	u.lessonMode.placeCard(u.lessonMode.projector)
	u.win.Canvas().Unfocus() // the keys go to the lesson
	u.lessonMode.tellLesson()
	if u.lessonMode.l == nil && u.lessonMode.err == nil && !u.st.Running && !u.loading && u.backend != nil {
		if u.controls.Prompt.Text == "" {
			u.controls.Prompt.SetText(assets.DemoPrompts[0])
		}
		u.generate()
	}
	u.lessonMode.goChapter(u.lessonMode.i)
	u.menus.buildMenu()
}

func (fc *lessonMode) closeLesson() {
	u := fc.ui
	u.lessonMode.on = false
	u.lessonMode.card.Hide()
	u.lessonMode.placeCard(u.lessonMode.projector)
	u.stream.SetFocus(false)
	u.menus.buildMenu()
}

// tellLesson builds the chapters from the last finished run, once per run.
func (fc *lessonMode) tellLesson() {
	u := fc.ui
	if u.st.Running || u.st.LastRun == nil {
		u.lessonMode.l, u.lessonMode.err, u.lessonMode.run = nil, nil, nil
		return
	}
	if u.lessonMode.run == u.st.LastRun && u.lessonMode.zero == (u.st.Count == viz.FromZero) {
		return // told already, in this numbering
	}
	u.lessonMode.run = u.st.LastRun
	u.lessonMode.l, u.lessonMode.err = u.lessonMode.buildLesson(u.st.LastRun)
}

// buildLesson tells run with the numbers the window's panels show: the
// run's own captures of its last prompt token.
func (fc *lessonMode) buildLesson(run *trace.Run) (*lesson.Lesson, error) {
	u := fc.ui
	var row func(int) []float32
	if ins, ok := u.backend.(Inspector); ok {
		row = ins.Embedding
	}
	insp, err := lesson.InspectionFromRun(run, row)
	if err != nil {
		return nil, fmt.Errorf("%w (a prompt of at most %d tokens keeps them)", err, allPromptLimit)
	}
	in := lesson.Input{Model: u.st.Info, Run: run, Inspect: insp, SourceRow: row, FromZero: u.st.Count == viz.FromZero, Lang: views.Lang}
	if cb, ok := u.backend.(ChatBackend); ok {
		in.ChatSpecial, in.ThinkingTemplate = lesson.ChatSpecials(chatModel{cb, u.backend})
	}
	if u.lessonMode.extraFor == run {
		in.Extra = u.lessonMode.extra
	}
	u.lessonMode.zero, u.lessonMode.in = in.FromZero, in
	return lesson.Build(in)
}

// chatModel joins a ChatBackend and its Backend's TokenText.
type chatModel struct {
	ChatBackend
	b Backend
}

func (c chatModel) TokenText(id int) string { return c.b.TokenText(id) }

var _ lesson.ChatModel = chatModel{}

// lessonRunStarted: the card waits for the new run (the panels now show
// it, not the run the chapters told).
func (fc *lessonMode) lessonRunStarted() {
	u := fc.ui
	if u.lessonMode.on && !u.lessonMode.measuring {
		u.lessonMode.l, u.lessonMode.run = nil, nil
		u.lessonMode.goChapter(u.lessonMode.i)
	}
}

// lessonRunFinished tells the new run when the card is open.
func (fc *lessonMode) lessonRunFinished() {
	u := fc.ui
	if u.lessonMode.on {
		u.lessonMode.tellLesson()
		u.lessonMode.goChapter(u.lessonMode.i)
	}
}

// goChapter shows chapter i (bounded); with Let the class guess, a
// chapter with a question shows it first and its answer at the next key.
func (fc *lessonMode) goChapter(i int) {
	u := fc.ui
	c := u.lessonMode.card
	defer u.lessonMode.fitCardColumn()
	if u.lessonMode.l == nil {
		c.Display(0, []string{tr("app.lesson.title", nil)}, tr("app.lesson.title", nil), u.lessonMode.lessonWaiting(), "")
		return
	}
	chs := u.lessonMode.l.Chapters
	i = max(0, min(i, len(chs)-1))
	if i != u.lessonMode.i {
		u.lessonMode.asking = u.lessonMode.guess && chs[i].Question != ""
	}
	if chs[i].Question == "" || !u.lessonMode.guess {
		u.lessonMode.asking = false
	}
	u.lessonMode.i = i
	titles := make([]string, len(chs))
	for k, ch := range chs {
		titles[k] = ch.Title
	}
	ch := chs[i]
	if u.lessonMode.asking {
		c.Display(i, titles, ch.Title, "", ch.Question)
		c.SetPlan("", false)
		u.lessonMode.showChapter(ch.Show)
		u.lessonMode.hideAnswer(true)
		return
	}
	u.lessonMode.hideAnswer(false)
	c.Display(i, titles, ch.Title, ch.Text, "")
	u.lessonMode.showPlan(ch)
	u.lessonMode.showChapter(ch.Show)
}

// setGuess ticks or clears Let the class guess: ticked, the chapter on
// the card asks its question again.
func (fc *lessonMode) setGuess(on bool) {
	u := fc.ui
	u.lessonMode.guess, u.lessonMode.asking = on, on
	if u.lessonMode.card.Guess.Checked != on {
		u.lessonMode.card.Guess.SetChecked(on) // calls back here, with nothing left to change
	}
	u.lessonMode.goChapter(u.lessonMode.i)
}

// hideAnswer hides (on) what answers the question on the card: the
// panels (a tab's content hidden alone is shown again by the tabs at
// their next refresh) and the written tokens, whichever chapter was on
// screen before; off shows them again.
func (fc *lessonMode) hideAnswer(on bool) {
	u := fc.ui
	u.stream.SetHideWritten(on)
	if on {
		u.tabs.Hide()
		u.lessonMode.note.Show()
		return
	}
	u.lessonMode.note.Hide()
	u.tabs.Show()
}

// nextChapter is →, Space, PageDown: the answer to the question on the
// card, else the next chapter.
func (fc *lessonMode) nextChapter() {
	u := fc.ui
	if u.lessonMode.asking {
		u.lessonMode.asking = false // reveal the answer on the same chapter
		u.lessonMode.goChapter(u.lessonMode.i)
		return
	}
	u.lessonMode.goChapter(u.lessonMode.i + 1)
}

// showChapter sets the window to what a chapter talks about.
func (fc *lessonMode) showChapter(s lesson.Show) {
	u := fc.ui
	u.stream.SetFocus(s.Query >= 0 && s.Query < len(u.st.Tokens))
	for _, p := range u.panels {
		if p.Name() == panelOfTab(s.Tab) {
			u.showTab(p.Name())
		}
	}
	if s.Query >= 0 && s.Query < len(u.st.Tokens) {
		u.stream.Select(s.Query)
	}
	if s.Source >= 0 {
		u.selectSource(s.Source)
		u.stream.SetSource(s.Source)
	}
	if s.Layer < 0 {
		return
	}
	switch s.Tab {
	case "Attention":
		if s.Head >= 0 {
			u.attn.OpenHead(s.Layer, s.Head)
		}
	case "MLP":
		if s.Layer < len(u.mlp.Layer.Options) {
			u.mlp.Layer.SetSelectedIndex(s.Layer)
		}
	case "KV cache":
		kv := u.inside.kv
		if s.Layer < len(kv.Layer.Options) {
			kv.Layer.SetSelectedIndex(s.Layer)
		}
		if g := s.Head / max(1, u.st.Info.Heads/max(1, u.st.Info.KVHeads)); s.Head >= 0 && g < len(kv.KVHead.Options) {
			kv.KVHead.SetSelectedIndex(g)
		}
	}
}

// lessonKey handles a key in lesson mode; false when it is not one.
func (fc *lessonMode) lessonKey(k *fyne.KeyEvent) bool {
	u := fc.ui
	switch k.Name {
	case fyne.KeyF11:
		u.lessonMode.toggleProjector()
		return true
	case fyne.KeyL:
		u.lessonMode.toggleLesson()
		return true
	}
	if !u.lessonMode.on {
		return false
	}
	switch k.Name {
	case fyne.KeyRight, fyne.KeySpace, fyne.KeyPageDown, fyne.KeyDown:
		u.lessonMode.nextChapter()
	case fyne.KeyLeft, fyne.KeyPageUp, fyne.KeyUp:
		u.lessonMode.goChapter(u.lessonMode.i - 1)
	case fyne.KeyHome:
		u.lessonMode.goChapter(0)
	case fyne.KeyEnd:
		u.lessonMode.goChapter(len(lesson.IDs)) // goChapter stops at the last: an MoE model's lesson has one more
	default:
		return false
	}
	return true
}
