package app

import (
	"errors"
	"path/filepath"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	nativedialog "github.com/sqweek/dialog"

	"loupe/i18n"
	"loupe/lesson"
	"loupe/lesson/page"
	"loupe/trace"
)

// File › Save lesson…: the handout of package lesson/page, which
// `loupe lesson --html` writes too.

// saveLesson asks where to write the page.
func (fc *lessonMode) saveLesson() {
	u := fc.ui
	if u.lessonMode.l == nil {
		u.fail(tr("app.err.nothing_to_save", nil), errors.New(tr("app.hint.open_lesson_first", nil)))
		return
	}
	u.pick(func() (string, error) {
		return nativedialog.File().Title(tr("app.save.lesson_title", nil)).Filter("HTML", "html").SetStartFile("loupe-lesson.html").Save()
	}, func(use func(string)) {
		d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
			if err == nil && w != nil {
				w.Close()
				use(w.URI().Path())
			}
		}, u.win)
		d.SetFileName("loupe-lesson.html")
		d.Show()
	}, func(path string) {
		if filepath.Ext(path) == "" {
			path += ".html"
		}
		if err := u.lessonMode.writeHandout(path, time.Now()); err != nil {
			u.fail(tr("app.err.save_lesson", nil), err)
			return
		}
		u.controls.Status.SetText(tr("app.status.saved_lesson", i18n.Args{"Path": path}))
	})
}

// lessonKV are the cached keys and values the handout's KV cache figure
// draws (empty when the backend cannot read them).
func (fc *lessonMode) lessonKV(in lesson.Input) trace.KVRows {
	u := fc.ui
	ins, _ := u.backend.(Inspector)
	if ins == nil {
		return trace.KVRows{}
	}
	return page.KV(in, ins)
}

// writeHandout writes the handout of the lesson on the card at path.
func (fc *lessonMode) writeHandout(path string, now time.Time) error {
	les := &fc.lessonState
	kv := les.kv
	if les.kvFor != les.run || les.run == nil {
		kv = fc.lessonKV(les.in)
	}
	return page.Write(path, les.in, kv, now)
}
