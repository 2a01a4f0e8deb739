package app

import (
	"fmt"

	"fyne.io/fyne/v2"

	"loupe/assets"
	"loupe/lesson"
)

// prefProjector was where projector mode was remembered: a launch after
// quitting in projector mode opened in it. It is cleared, not read.
const prefProjector = "projector"

// toggleProjector switches projector mode (for this launch only).
func (fc *lessonMode) toggleProjector() {
	u := fc.ui
	u.lessonMode.setProjector(!u.les.projector)
}

// setProjector: full screen, the light theme with type 1.5 × larger, the
// settings pane hidden (keyboard only); off restores the theme chosen in
// View and the pane.
func (fc *lessonMode) setProjector(on bool) {
	u := fc.ui
	if on == u.les.projector {
		return
	}
	u.les.projector = on
	u.app.Preferences().RemoveValue(prefProjector)
	if on {
		u.les.winSize = u.win.Canvas().Size()
	}
	u.win.SetFullScreen(on)
	u.stream.SetHoverLine(!on)
	if on {
		u.les.leftOffset = u.les.split.Offset
		u.left.Hide()
		u.app.Settings().SetTheme(projectorTheme())
	} else {
		u.left.Show()
		u.app.Settings().SetTheme(newTheme(u.app.Preferences().String(prefTheme)))
	}
	u.lessonMode.placeCard(on)
	if !on {
		u.les.split.Offset = u.les.leftOffset
	}
	u.les.split.Refresh()
	u.menus.buildMenu()
	u.dirty = true
	u.refreshPanels()
	if !on && !u.les.winSize.IsZero() {
		// Back to the size it had: grown to projector type's minimum, it
		// came back taller than a 768-pixel screen.
		u.win.Resize(u.les.winSize)
	}
}

// lessonMenuItems are View › Lesson and View › Projector.
func (fc *lessonMode) lessonMenuItems() []*fyne.MenuItem {
	u := fc.ui
	l := u.menus.item("Lesson (L)", u.lessonMode.toggleLesson)
	l.Checked = u.les.on
	p := u.menus.item("Projector (F11)", u.lessonMode.toggleProjector)
	p.Checked = u.les.projector
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
	u.les.i = max(0, lesson.Index(u.opt.LessonChapter))
	u.les.on = true
	if u.opt.Guess {
		u.lessonMode.setGuess(true)
	}
	u.les.card.Show()
	u.lessonMode.placeCard(u.les.projector)
	if u.controls.Prompt.Text == "" {
		u.controls.Prompt.SetText(assets.DemoPrompts[0])
	}
	u.generateAfter = true
	u.les.card.Display(0, []string{"The lesson"}, "The lesson", "The model is loading; the lesson starts with its first answer.", "")
}

// checkLessonChapter refuses an unknown --lesson-chapter.
func checkLessonChapter(id string) error {
	if id != "" && lesson.Index(id) < 0 {
		return fmt.Errorf("--lesson-chapter %q: want one of %v (%s: mixture-of-experts models)", id, lesson.IDs, lesson.Experts)
	}
	return nil
}
