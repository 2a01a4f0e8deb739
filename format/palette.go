package format

import (
	"image/color"
	"math"
)

// Stops are a colour ramp's evenly spaced stops, hex 0xRRGGBB.
type Stops []uint32

// At maps t in [0, 1] to a colour interpolated linearly (in sRGB) between
// the two nearest stops; t out of range is clamped and NaN gives the
// first stop.
func (s Stops) At(t float64) color.NRGBA {
	if math.IsNaN(t) || t < 0 {
		t = 0
	}
	f := min(t, 1) * float64(len(s)-1)
	k := min(int(f), len(s)-2)
	return mix(s[k], s[k+1], f-float64(k))
}

// mix is a + f·(b − a) per channel, rounded.
func mix(a, b uint32, f float64) color.NRGBA {
	ch := func(x uint32, sh uint) float64 { return float64(x >> sh & 0xff) }
	lerp := func(sh uint) uint8 { return uint8(math.Round(ch(a, sh) + f*(ch(b, sh)-ch(a, sh)))) }
	return color.NRGBA{R: lerp(16), G: lerp(8), B: lerp(0), A: 255}
}

// Viridis is matplotlib's viridis (dark purple → teal → yellow) from its
// published 11 stops: perceptually uniform, readable in greyscale and by
// colour-blind readers. The window's heatmaps and the exported figures
// both colour with it.
var Viridis = Stops{0x440154, 0x482475, 0x414487, 0x355f8d, 0x2a788e,
	0x21918c, 0x22a884, 0x44bf70, 0x7ad151, 0xbddf26, 0xfde725}

// Magma is matplotlib's magma (black → purple → orange → pale yellow).
var Magma = Stops{0x000004, 0x140e36, 0x3b0f70, 0x641a80, 0x8c2981,
	0xb73779, 0xde4968, 0xf7705c, 0xfe9f6d, 0xfecf92, 0xfcfdbf}

// PurpleOrange is ColorBrewer's PuOr diverging ramp for signed values:
// purple for negative, near-white for zero, orange for positive — a pair
// colour-blind readers tell apart, unlike red–green, and lightest in the
// middle so that zero recedes.
var PurpleOrange = Stops{0x2d004b, 0x542788, 0x8073ac, 0xb2abd2, 0xd8daeb,
	0xf7f7f7, 0xfee0b6, 0xfdb863, 0xe08214, 0xb35806, 0x7f3b08}

// Diverging maps a signed difference v in [-1, 1] to blue (−), a neutral
// grey (0) and red (+): the ends of ColorBrewer's RdBu, readable for the
// common colour-vision deficiencies. The square root keeps small
// differences visible. NaN is grey.
func Diverging(v float64) color.NRGBA {
	if v != v {
		v = 0
	}
	v = max(-1, min(1, v))
	mid := [3]float64{200, 200, 200}
	end := [3]float64{178, 24, 43} // red
	if v < 0 {
		end, v = [3]float64{33, 102, 172}, -v // blue
	}
	t := math.Sqrt(v)
	ch := func(k int) uint8 { return uint8(math.Round(mid[k] + (end[k]-mid[k])*t)) }
	return color.NRGBA{ch(0), ch(1), ch(2), 255}
}
