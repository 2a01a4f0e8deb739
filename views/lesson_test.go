package views

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// The chapter menu of a card in the lesson's column shows its
// placeholder whole, never a long title ellipsised (the title above
// says it), and a choice in it goes to that chapter.
func TestLessonCardMenuIsNotCut(t *testing.T) {
	newTestApp(t)
	c := NewLessonCard()
	c.SetNarrow(true)
	titles := []string{"Text becomes tokens", "One step further: only part of the model per token"}
	went := -1
	c.OnGo = func(i int) {
		went = i
		c.Display(i, titles, titles[i], "text", "")
	}
	c.Display(1, titles, titles[1], "text", "")
	w := test.NewWindow(c)
	w.Resize(fyne.NewSize(320, 400))
	for _, o := range Layout(w.Content(), w.Canvas().Size(), nil) {
		if o.Visible && o.Clipped {
			t.Errorf("%s %q clipped in a 320-wide column", o.Kind, o.Text)
		}
	}
	if c.Chapters.Selected != "" || selectText(c.Chapters) != tr("views.lesson.chapters", nil) {
		t.Errorf("the menu shows %q, want its placeholder", selectText(c.Chapters))
	}
	c.Chapters.SetSelectedIndex(0)
	if went != 0 || c.Chapters.Selected != "" {
		t.Errorf("chose chapter 1: went to %d, menu shows %q", went, c.Chapters.Selected)
	}
	w.Close()
}
