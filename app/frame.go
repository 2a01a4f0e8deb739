package app

import (
	"context"
	"image"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
)

// A generation's engine starts once the window has drawn the frame that
// starts the run (the prompt's tokens in the stream, the Stop button, the
// status line). That frame costs 50-80 ms of the UI thread on a machine
// without a GPU (Mesa's llvmpipe draws on that thread) and was drawn
// inside prefill: on the shared 2-core VM the UI thread used 0.06-0.08 s
// of CPU during the 17-token prompt's 0.6-1.0 s prefill, from the two
// cores the engine's workers had. Drawn first, it takes nothing from them
// (0-0.05 s remain: with --generate a frame of the window's start may
// follow); the user sees the run start at once either way.

// firstFrameWait bounds the wait: a window that is not drawn (minimised,
// hidden) starts its engine after it.
const firstFrameWait = time.Second

// frameWatch tells a goroutine when the window has painted: a 1×1
// transparent raster over the window's content, whose image Fyne asks for
// while painting, after it was refreshed.
type frameWatch struct {
	raster *canvas.Raster
	mu     sync.Mutex
	next   chan struct{} // closed by the next paint; nil when none is awaited
}

func newFrameWatch() *frameWatch {
	f := &frameWatch{}
	f.raster = canvas.NewRaster(f.draw)
	f.raster.Resize(fyne.NewSize(1, 1))
	return f
}

// over returns content with the watch on top of it, at its top-left
// corner (a container without layout keeps the raster at 1×1).
func (f *frameWatch) over(content fyne.CanvasObject) fyne.CanvasObject {
	return container.NewStack(content, container.NewWithoutLayout(f.raster))
}

// draw is the raster's image, asked for on the UI goroutine while a frame
// is painted: it reports the paint.
func (f *frameWatch) draw(w, h int) image.Image {
	f.mu.Lock()
	if f.next != nil {
		close(f.next)
		f.next = nil
	}
	f.mu.Unlock()
	return image.NewNRGBA(image.Rect(0, 0, max(w, 1), max(h, 1)))
}

// arm asks for the next paint (on the UI goroutine) and returns a channel
// closed once it began.
func (f *frameWatch) arm() <-chan struct{} {
	f.mu.Lock()
	if f.next == nil {
		f.next = make(chan struct{})
	}
	ch := f.next
	f.mu.Unlock()
	f.raster.Refresh()
	return ch
}

// awaitFrame waits (off the UI goroutine) until the frame that began when
// painted was closed has been drawn: a callback posted then runs once the
// event loop has finished that frame. It gives up after firstFrameWait or
// when ctx ends; a nil painted (no watch: the tests' window) waits for
// nothing.
func (u *UI) awaitFrame(ctx context.Context, painted <-chan struct{}) {
	if painted == nil {
		return
	}
	limit := time.NewTimer(firstFrameWait)
	defer limit.Stop()
	select {
	case <-painted:
	case <-ctx.Done():
		return
	case <-limit.C:
		return
	}
	drawn := make(chan struct{})
	u.do(func() { close(drawn) })
	select {
	case <-drawn:
	case <-ctx.Done():
	case <-limit.C:
	}
}
