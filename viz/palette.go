package viz

import (
	"image/color"
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

// newRamp samples n colours (n ≥ 2) from the stops, hex 0xRRGGBB.
func newRamp(n int, stops ...uint32) Ramp {
	n = max(n, 2)
	cs := make([]color.Color, n)
	for i := range cs {
		t := float64(i) / float64(n-1) * float64(len(stops)-1)
		k := min(int(t), len(stops)-2)
		cs[i] = mix(stops[k], stops[k+1], t-float64(k))
	}
	return Ramp{colors: cs}
}

// mix is a + f·(b − a) per channel.
func mix(a, b uint32, f float64) color.Color {
	ch := func(x uint32, s uint) float64 { return float64(x >> s & 0xff) }
	lerp := func(s uint) uint8 { return uint8(math.Round(ch(a, s) + f*(ch(b, s)-ch(a, s)))) }
	return color.NRGBA{R: lerp(16), G: lerp(8), B: lerp(0), A: 255}
}

// Viridis is matplotlib's viridis (dark purple → teal → yellow), sampled
// from its published 11 stops: perceptually uniform, readable in greyscale
// and by colour-blind readers.
func Viridis(n int) Ramp {
	return newRamp(n, 0x440154, 0x482475, 0x414487, 0x355f8d, 0x2a788e,
		0x21918c, 0x22a884, 0x44bf70, 0x7ad151, 0xbddf26, 0xfde725)
}

// Magma is matplotlib's magma (black → purple → orange → pale yellow).
func Magma(n int) Ramp {
	return newRamp(n, 0x000004, 0x140e36, 0x3b0f70, 0x641a80, 0x8c2981,
		0xb73779, 0xde4968, 0xf7705c, 0xfe9f6d, 0xfecf92, 0xfcfdbf)
}

// PurpleOrange is ColorBrewer's PuOr diverging ramp for signed values:
// purple for negative, near-white for zero, orange for positive — a pair
// colour-blind readers tell apart, unlike red–green, and lightest in the
// middle so that zero recedes.
func PurpleOrange(n int) Ramp {
	return newRamp(n, 0x2d004b, 0x542788, 0x8073ac, 0xb2abd2, 0xd8daeb,
		0xf7f7f7, 0xfee0b6, 0xfdb863, 0xe08214, 0xb35806, 0x7f3b08)
}

// colorAt picks the palette colour for t in [0, 1].
func colorAt(cs []color.Color, t float64) color.Color {
	if math.IsNaN(t) || t < 0 {
		t = 0
	}
	t = min(t, 1)
	return cs[int(math.Round(t*float64(len(cs)-1)))]
}

var _ palette.Palette = Ramp{}
