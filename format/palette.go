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

// Confidence colours a written token by the model's probability of it,
// p in [0, 1]: dark orange for a token the model found unlikely, through
// pale lavender, to purple for one it was sure of (ColorBrewer's PuOr
// from its orange end, colour-blind safe). The stream paints it at
// ConfidenceAlpha over the window's background, under the text.
var Confidence = Stops{0xb35806, 0xe08214, 0xfdb863, 0xd8daeb, 0x8073ac, 0x542788}

// ConfidenceAlpha is the opacity of Confidence's fills: text on them
// keeps 4.5 : 1 in both themes (5.6 at worst, on the lavender in the dark
// theme; app/theme_test.go holds it).
const ConfidenceAlpha = 0x60

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

// Luminance is a colour's relative luminance as WCAG 2 defines it:
// 0.2126 R + 0.7152 G + 0.0722 B of the linearised sRGB channels, 0 for
// black and 1 for white. Alpha is ignored: blend first.
func Luminance(c color.Color) float64 {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	r, g, b := n.R, n.G, n.B
	lin := func(v uint8) float64 {
		x := float64(v) / 255
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

// Contrast is WCAG 2's contrast ratio of two colours, (L1 + 0.05) /
// (L2 + 0.05) with L1 the lighter: 1 for equal colours, 21 for black on
// white. Text needs 4.5 to be read from the back of a room (AA).
func Contrast(a, b color.Color) float64 {
	x, y := Luminance(a), Luminance(b)
	return (max(x, y) + 0.05) / (min(x, y) + 0.05)
}

// Over is c painted with its alpha over the opaque bg, as a canvas draws
// a translucent fill.
func Over(c, bg color.Color) color.NRGBA {
	f := color.NRGBAModel.Convert(c).(color.NRGBA)
	g := color.NRGBAModel.Convert(bg).(color.NRGBA)
	a := float64(f.A) / 255
	ch := func(x, y uint8) uint8 { return uint8(math.Round(a*float64(x) + (1-a)*float64(y))) }
	return color.NRGBA{ch(f.R, g.R), ch(f.G, g.G), ch(f.B, g.B), 255}
}
