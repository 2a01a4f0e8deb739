package app

import (
	"testing"

	"fyne.io/fyne/v2"

	"loupe/lesson"
)

// On 28 layers × 12 heads (Qwen2.5-1.5B's shape), at 1,366 × 768 with the
// lesson card beside, the grid chapter shows the whole grid and the
// sentences under it: no attention text clipped, the caption drawn.
func TestAttentionGridAndCaptionFit28x12(t *testing.T) {
	h := newHarness(t, Options{})
	h.fake.layers, h.fake.heads = 28, 12
	h.u.st.Info = h.fake.Info()
	h.generate("My cat is purple . But my friends tell me there is no such thing as a", 4)
	onUI(func() {
		h.u.win.Resize(fyne.NewSize(screens[0].Width, screens[0].Height-titleBar))
		h.u.lessonMode.openLesson()
		h.u.lessonMode.goChapter(lesson.Index(lesson.Grid))
	})
	var r layoutReport
	onUI(func() { r = h.u.layout() })
	caption := h.u.attn.Caption.Text
	seen := false
	for _, o := range r.Objects {
		if o.Panel != "attention" || !o.Visible {
			continue
		}
		if o.Clipped {
			t.Errorf("clipped at %d,%d %d×%d: %q", o.X, o.Y, o.W, o.H, o.Text)
		}
		if o.Kind == "text" && o.Text == caption {
			seen = true
		}
	}
	if rows, cols := h.u.attn.Grid.Dims(); rows != 28 || cols != 12 || !seen {
		t.Errorf("grid %d × %d, caption %q drawn: %v", rows, cols, caption, seen)
	}
}
