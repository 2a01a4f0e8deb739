package app

import (
	"fmt"
	"image"
	"image/png"
	"os"
	"time"

	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/software"
)

// settle is how long the window gets to draw the final state before the
// screenshot: a few frames at 60 Hz, and the raster heatmaps.
const settle = 800 * time.Millisecond

// afterRun takes the --screenshot once a generation has ended (or once the
// model is loaded when --generate was not given), then quits with --quit.
func (u *UI) afterRun(err error) {
	if u.shotTaken || u.st.Running || u.loading || u.generateAfter {
		return
	}
	if err == nil && u.experimentRunner.startFlagExperiment() {
		return // experimentDone calls again
	}
	if u.opt.Screenshot == "" {
		if u.opt.Quit {
			quitScripted(u)
		}
		return
	}
	u.shotTaken = true
	u.shootWhenIdle(settle, 150)
}

// quitScripted ends a --quit run, after its screenshot or its failure:
// at once where Main set exitAfterShot, else (tests) by quitting the app.
func quitScripted(u *UI) {
	if u.exitAfterShot != nil {
		u.exitAfterShot()
		return
	}
	u.app.Quit()
}

// shootWhenIdle takes the screenshot after wait, once no Inspect job runs
// (the Logit lens and KV cache tabs fill in after the run), retrying up to
// tries times.
func (u *UI) shootWhenIdle(wait time.Duration, tries int) {
	time.AfterFunc(wait, func() {
		u.do(func() {
			if tries > 0 && u.insideJobs.inspectBusy() {
				u.shootWhenIdle(200*time.Millisecond, tries-1)
				return
			}
			img := u.capture()
			if uniform(img) {
				u.fail("Screenshot", fmt.Errorf("%s: the window gave a blank image", u.opt.Screenshot))
			} else if err := savePNG(u.opt.Screenshot, img); err != nil {
				u.fail("Screenshot", err)
			} else {
				fmt.Println("loupe: screenshot saved to", u.opt.Screenshot)
			}
			u.writeLayoutReport()
			if u.onShot != nil {
				u.onShot()
			}
			if u.opt.Quit {
				quitScripted(u)
			}
		})
	})
}

// capture is the window's image. The GL capture reads the front buffer,
// which some drivers (Mesa under Xvfb) leave black; then the content is
// drawn again with Fyne's software painter, where the window draws it:
// under the menu bar, whose band stays blank. Stretched over the menu's
// band it had more height than in the window, and showed whole a row
// that the window cut.
func (u *UI) capture() image.Image {
	img := u.win.Canvas().Capture()
	if !uniform(img) {
		return img
	}
	content := u.win.Content()
	at, size := content.Position(), content.Size()
	c := software.NewCanvas()
	c.SetPadded(false)
	c.SetContent(container.NewWithoutLayout(content))
	c.Resize(u.win.Canvas().Size())
	content.Move(at)
	content.Resize(size)
	overlays := u.win.Canvas().Overlays().List() // an open dialog is drawn too
	for _, o := range overlays {
		c.Overlays().Add(o)
	}
	img = c.Capture()
	for _, o := range overlays {
		c.Overlays().Remove(o)
	}
	u.win.SetContent(content)
	return img
}

// uniform reports whether every pixel of a 64 × 64 sample has one colour.
func uniform(img image.Image) bool {
	if img == nil {
		return true
	}
	b := img.Bounds()
	if b.Empty() {
		return true
	}
	r0, g0, b0, a0 := img.At(b.Min.X, b.Min.Y).RGBA()
	for j := range 64 {
		for i := range 64 {
			r, g, bl, a := img.At(b.Min.X+i*b.Dx()/64, b.Min.Y+j*b.Dy()/64).RGBA()
			if r != r0 || g != g0 || bl != b0 || a != a0 {
				return false
			}
		}
	}
	return true
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
