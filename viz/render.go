package viz

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"math"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure is anything that draws itself on a canvas. *plot.Plot is one, and
// so is every figure of this package.
type Figure interface {
	Draw(c draw.Canvas)
}

// DPI is the resolution at which a logical pixel (a Fyne unit at scale 1)
// is 1/96 inch. Pass DPI × scale to Image for a crisp image on a scaled
// screen.
const DPI = 96

// ErrSize reports a non-positive image size or resolution.
var ErrSize = errors.New("viz: image size and DPI must be positive")

// Image renders f into an image of exactly wPx × hPx pixels at dpi dots
// per inch. Text is sized in points, so dpi sets how large it looks:
// a GUI at scale s passes the widget size in pixels and DPI·s.
func Image(f Figure, wPx, hPx int, dpi float64) (image.Image, error) {
	if wPx <= 0 || hPx <= 0 || !(dpi > 0) || math.IsInf(dpi, 0) {
		return nil, fmt.Errorf("%w: %d×%d px at %g dpi", ErrSize, wPx, hPx, dpi)
	}
	c := vgimg.NewWith(
		vgimg.UseImage(image.NewRGBA(image.Rect(0, 0, wPx, hPx))),
		vgimg.UseDPI(max(1, int(math.Round(dpi)))),
	)
	if err := drawSafely(f, c); err != nil {
		return nil, err
	}
	return c.Image(), nil
}

// PNG renders f at w × h (points) at DPI and encodes it.
func PNG(f Figure, w, h vg.Length) ([]byte, error) {
	if !(w > 0) || !(h > 0) {
		return nil, fmt.Errorf("%w: %v × %v", ErrSize, w, h)
	}
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(DPI))
	if err := drawSafely(f, c); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("viz: encode png: %w", err)
	}
	return buf.Bytes(), nil
}

// SVG renders f at w × h (points) as SVG with the fonts embedded, so the
// file shows the same on a machine without Liberation installed.
func SVG(f Figure, w, h vg.Length) ([]byte, error) {
	if !(w > 0) || !(h > 0) {
		return nil, fmt.Errorf("%w: %v × %v", ErrSize, w, h)
	}
	c := vgsvg.NewWith(vgsvg.UseWH(w, h), vgsvg.EmbedFonts(true))
	if err := drawSafely(f, c); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("viz: encode svg: %w", err)
	}
	return buf.Bytes(), nil
}

// Pixels converts a length in pixels at dpi to points.
func Pixels(px int, dpi float64) vg.Length { return vg.Length(float64(px) * 72 / dpi) }

// drawSafely draws f, turning a panic inside gonum/plot into an error so
// that no panic reaches the user.
func drawSafely(f Figure, c vg.CanvasSizer) (err error) {
	if f == nil {
		return errors.New("viz: nil figure")
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("viz: draw %T: %v", f, r)
		}
	}()
	f.Draw(draw.New(c))
	return nil
}
