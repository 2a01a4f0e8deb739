package app

import (
	"math"

	"fyne.io/fyne/v2"
	"github.com/go-gl/glfw/v3.4/glfw"
)

// defaultWindow is the window's first size where the screen has room.
var defaultWindow = fyne.NewSize(1500, 940)

// titleBar is left free above the window for the desktop's title bar,
// which the work area does not subtract.
const titleBar = 40

// firstWindowSize is defaultWindow cut to the usable area of the primary
// screen, so that every panel lies on the screen from the start: at
// 1,500 × 940 on a 1,366 × 768 laptop, Head PNG… and the head bars were
// off its edge. The screen is read from GLFW, which Fyne has initialised
// once a window exists; where it cannot say, the default stands.
func firstWindowSize(a fyne.App) fyne.Size {
	wPx, hPx, mm := screenArea()
	return fitScreen(defaultWindow, wPx, hPx, mm, a.Settings().Scale())
}

// fitScreen cuts want to a screen of wPx × hPx pixels, widthMm wide,
// in Fyne's units: pixels over the scale Fyne will pick (the screen's
// DPI over 120, at least 1, times the user's FYNE_SCALE).
func fitScreen(want fyne.Size, wPx, hPx, widthMm int, user float32) fyne.Size {
	if wPx <= 0 || hPx <= 0 {
		return want
	}
	scale := float32(1)
	if widthMm > 0 {
		if dpi := float32(wPx) / (float32(widthMm) / 25.4); dpi >= 10 && dpi <= 1000 {
			scale = max(1, dpi/120)
		}
	}
	if user > 0 {
		scale *= user
	}
	scale = float32(math.Round(float64(scale)*10) / 10)
	w := float32(wPx) / scale
	h := float32(hPx)/scale - titleBar
	return fyne.NewSize(min(want.Width, w), min(want.Height, h))
}

// screenArea is the primary monitor's work area in pixels and its width
// in millimetres; zeros when GLFW cannot tell (no display, a headless
// driver: its calls panic when it is not initialised).
func screenArea() (w, h, widthMm int) {
	defer func() {
		if recover() != nil {
			w, h, widthMm = 0, 0, 0
		}
	}()
	m := glfw.GetPrimaryMonitor()
	if m == nil {
		return 0, 0, 0
	}
	_, _, w, h = m.GetWorkarea()
	widthMm, _ = m.GetPhysicalSize()
	return w, h, widthMm
}
