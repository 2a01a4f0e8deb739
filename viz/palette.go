package viz

import (
	"image/color"
	"loupe/format"
	"math"

	"gonum.org/v1/plot/palette"
)

// Ramp is a palette.Palette interpolated linearly (in sRGB) between evenly
// spaced stops.
type Ramp struct {
	colors []color.Color
}

// Colors implements palette.Palette.
func (r Ramp) Colors() []color.Color { return r.colors }

// At returns the colour for t in [0, 1] (clamped; NaN gives the first).
func (r Ramp) At(t float64) color.Color { return colorAt(r.colors, t) }

// newRamp samples n colours (n ≥ 2) evenly from a ramp of loupe/format,
// the palette the window's heatmaps use too.
func newRamp(n int, stops format.Stops) Ramp {
	n = max(n, 2)
	cs := make([]color.Color, n)
	for i := range cs {
		cs[i] = stops.At(float64(i) / float64(n-1))
	}
	return Ramp{colors: cs}
}

// Viridis is format.Viridis sampled at n colours.
func Viridis(n int) Ramp { return newRamp(n, format.Viridis) }

// Magma is format.Magma sampled at n colours.
func Magma(n int) Ramp { return newRamp(n, format.Magma) }

// PurpleOrange is format.PurpleOrange (signed values) sampled at n colours.
func PurpleOrange(n int) Ramp { return newRamp(n, format.PurpleOrange) }

// colorAt picks the palette colour for t in [0, 1].
func colorAt(cs []color.Color, t float64) color.Color {
	if math.IsNaN(t) || t < 0 {
		t = 0
	}
	t = min(t, 1)
	return cs[int(math.Round(t*float64(len(cs)-1)))]
}

var _ palette.Palette = Ramp{}
