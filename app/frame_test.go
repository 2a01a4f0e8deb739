package app

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// The watch reports the first paint after it was armed, and only that.
func TestFrameWatchReportsThePaintAfterArm(t *testing.T) {
	a := test.NewTempApp(t)
	w := a.NewWindow("frame")
	f := newFrameWatch()
	w.SetContent(f.over(widget.NewLabel("the window's content")))
	w.Resize(fyne.NewSize(200, 100))
	w.Show()
	w.Canvas().Capture() // a paint before arm reports nothing
	painted := f.arm()
	select {
	case <-painted:
		t.Fatal("reported a paint before the window painted")
	default:
	}
	w.Canvas().Capture()
	select {
	case <-painted:
	default:
		t.Fatal("the paint after arm was not reported")
	}
	if s := f.raster.Size(); s.Width != 1 || s.Height != 1 {
		t.Errorf("the watch's raster is %v, want 1×1 over the content", s)
	}
}
