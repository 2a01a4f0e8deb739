package app

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"loupe/assets"
	"loupe/lesson"
	"loupe/views"
)

// prefProjector was where projector mode was remembered: a launch after
// quitting in projector mode opened in it. It is cleared, not read.
const prefProjector = "projector"

// toggleProjector switches projector mode (for this launch only).
func (fc *lessonMode) toggleProjector() {
	u := fc.ui
	u.lessonMode.setProjector(!u.lessonMode.projector)
}

// setProjector: full screen, the light theme with type 1.5 × larger, the
// settings pane hidden (keyboard only); off restores the theme chosen in
// View and the pane.
func (fc *lessonMode) setProjector(on bool) {
	u := fc.ui
	if on == u.lessonMode.projector {
		return
	}
	u.lessonMode.projector = on
	u.app.Preferences().RemoveValue(prefProjector)
	if on {
		u.lessonMode.winSize = u.win.Canvas().Size()
	}
	u.win.SetFullScreen(on)
	u.stream.SetHoverLine(!on)
	if on {
		u.lessonMode.leftOffset = u.lessonMode.split.Offset
		// The strip down to its least height (two whole rows of projector
		// chips): at 1,366 × 768 the panels under it need every pixel.
		u.lessonMode.stripAt, u.lessonMode.strip.Offset = u.lessonMode.strip.Offset, 0
		u.left.Hide()
		u.app.Settings().SetTheme(projectorTheme())
	} else {
		u.left.Show()
		u.app.Settings().SetTheme(newTheme(u.app.Preferences().String(prefTheme)))
	}
	u.lessonMode.placeCard(on)
	u.lessonMode.compactPanels(on)
	if u.lessonMode.on && u.lessonMode.l != nil && u.lessonMode.i < len(u.lessonMode.l.Chapters) {
		u.lessonMode.showPlan(u.lessonMode.l.Chapters[u.lessonMode.i]) // short in projector mode
	}
	if !on {
		u.lessonMode.split.Offset, u.lessonMode.strip.Offset = u.lessonMode.leftOffset, u.lessonMode.stripAt
	}
	u.lessonMode.split.Refresh()
	u.lessonMode.strip.Refresh()
	u.menus.buildMenu()
	u.dirty = true
	u.refreshPanels()
	if !on && !u.lessonMode.winSize.IsZero() {
		// Back to the size it had: grown to projector type's minimum, it
		// came back taller than a 768-pixel screen.
		u.win.Resize(u.lessonMode.winSize)
	}
}

// cardColumn is the share of the window's width projector mode's card
// column starts at; a chapter whose card is taller widens it up to
// cardColumnMax, where the panels beside leave the room.
const cardColumn, cardColumnMax = 0.3, 0.45

// fitCardColumn makes the whole card (title, text, keys, Let the class
// guess) fit projector mode's column: under projector type the longer
// chapters (the KV cache of a 28-layer model, an MoE model's experts)
// ran past the bottom of a 768-pixel screen. It widens the column in
// steps of 2.5 % of the width, as far as the panels' least width allows
// (the split gives them that first), then, where that is not enough,
// sets the chapter's text a size smaller (cardTextSize): still larger
// than the window's.
func (fc *lessonMode) fitCardColumn() {
	u := fc.ui
	c := u.lessonMode.card
	c.Text.SizeName = theme.SizeNameText
	defer c.Text.Refresh()
	room := u.lessonMode.split.Size()
	if !u.lessonMode.projector || !u.lessonMode.on || room.Width <= 0 {
		return
	}
	widest := room.Width - u.lessonMode.split.Trailing.MinSize().Width - 2*theme.Padding()
	width := func(off float64) float32 { return min(float32(off)*room.Width, widest) - 2*theme.Padding() }
	off := cardColumn
	for off < cardColumnMax && cardHeight(c, width(off)) > room.Height {
		off += 0.025
	}
	if cardHeight(c, width(off)) > room.Height {
		c.Text.SizeName = cardTextSize
	}
	if off != u.lessonMode.split.Offset {
		u.lessonMode.split.Offset = off
		u.lessonMode.split.Refresh()
	}
}

// cardHeight is the card's least height at the given width: its wrapped
// texts are laid out at that width first (their height follows it).
func cardHeight(c *views.LessonCard, width float32) float32 {
	c.Resize(fyne.NewSize(width, c.Size().Height))
	return c.MinSize().Height
}

// compactPanels gives the panels that have one their short form in
// projector mode: the figure for the class, the explanation on the card.
func (fc *lessonMode) compactPanels(on bool) {
	for _, p := range fc.ui.panels {
		if c, ok := p.(views.Compacter); ok {
			c.Compact(on)
		}
	}
}

// lessonMenuItems are View › Lesson and View › Projector.
func (fc *lessonMode) lessonMenuItems() []*fyne.MenuItem {
	u := fc.ui
	l := u.menus.item(tr("app.lesson.button", nil), u.lessonMode.toggleLesson)
	l.Checked = u.lessonMode.on
	p := u.menus.item(tr("app.projector.button", nil), u.lessonMode.toggleProjector)
	p.Checked = u.lessonMode.projector
	return []*fyne.MenuItem{l, p}
}

// startLesson applies --lesson, --lesson-chapter, --guess and --projector.
func (fc *lessonMode) startLesson() {
	u := fc.ui
	if u.opt.Projector {
		u.lessonMode.setProjector(true)
	}
	if !u.opt.Lesson {
		return
	}
	u.lessonMode.i = max(0, lesson.Index(u.opt.LessonChapter))
	u.lessonMode.on = true
	if u.opt.Guess {
		u.lessonMode.setGuess(true)
	}
	u.lessonMode.card.Show()
	u.lessonMode.placeCard(u.lessonMode.projector)
	if u.controls.Prompt.Text == "" {
		u.controls.Prompt.SetText(assets.DemoPrompts[0])
	}
	u.generateAfter = true
	u.lessonMode.card.Display(0, []string{tr("app.lesson.title", nil)}, tr("app.lesson.title", nil), tr("app.lesson.loading", nil), "")
}

// checkLessonChapter refuses an unknown --lesson-chapter.
func checkLessonChapter(id string) error {
	if id != "" && lesson.Index(id) < 0 {
		return fmt.Errorf("--lesson-chapter %q: want one of %s", id, lessonChapters())
	}
	return nil
}

// lessonChapters lists the chapter ids for --lesson-chapter's help and
// its error, the same list in both: the article's chapters, then the one
// a mixture-of-experts model adds.
func lessonChapters() string {
	return strings.Join(lesson.IDs, ", ") + ", " + lesson.Experts + " (mixture-of-experts models)"
}
