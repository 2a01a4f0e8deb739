package app

import (
	"fmt"
	"image"
	"image/png"
	"os"
	"time"

	"fyne.io/fyne/v2"
)

// settle is how long the window gets to draw the final state before the
// screenshot: a few frames at 60 Hz, and the raster heatmaps.
const settle = 800 * time.Millisecond

// afterRun takes the --screenshot once a generation has ended (or once the
// model is loaded when --generate was not given), then quits with --quit.
func (u *UI) afterRun(err error) {
	if u.shotTaken || u.running || u.loading || u.generateAfter {
		return
	}
	if u.opt.Screenshot == "" {
		if u.opt.Quit {
			u.app.Quit()
		}
		return
	}
	u.shotTaken = true
	time.AfterFunc(settle, func() {
		fyne.Do(func() {
			if err := savePNG(u.opt.Screenshot, u.win.Canvas().Capture()); err != nil {
				u.fail("Screenshot", err)
			} else {
				fmt.Println("loupe: screenshot saved to", u.opt.Screenshot)
			}
			if u.opt.Quit {
				u.app.Quit()
			}
		})
	})
}

// savePNG writes img to path, through a temporary file so that a reader
// never sees half an image.
func savePNG(path string, img image.Image) error {
	if img == nil || img.Bounds().Empty() {
		return fmt.Errorf("%s: the window gave an empty image", path)
	}
	tmp := path + ".part"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
