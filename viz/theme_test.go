package viz

import (
	"image/color"
	"math"
	"testing"
)

// luminance is the WCAG relative luminance of c.
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		x := float64(v) / 0xffff
		if x <= 0.03928 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

// contrast is the WCAG contrast ratio (1..21).
func contrast(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// TestContrast: body text needs 7:1 (WCAG AAA, a washed-out projector
// still shows it); bars, labels in colour and grid need 3:1 against the
// background (WCAG for graphics).
func TestContrast(t *testing.T) {
	for name, th := range map[string]Theme{"dark": Dark(), "light": Light()} {
		if c := contrast(th.Foreground, th.Background); c < 7 {
			t.Errorf("%s: text contrast %.1f < 7", name, c)
		}
		for what, col := range map[string]color.Color{"accent": th.Accent, "highlight": th.Highlight,
			"prefill": th.Prefill, "decode": th.Decode, "negative": th.Negative} {
			if c := contrast(col, th.Background); c < 3 {
				t.Errorf("%s: %s contrast %.1f < 3", name, what, c)
			}
		}
	}
}

// TestPaletteOrder: a sequential palette must get lighter from low to high
// so that it reads in greyscale and for colour-blind readers; the
// diverging one must be lightest in the middle.
func TestPaletteOrder(t *testing.T) {
	for name, r := range map[string]Ramp{"viridis": Viridis(256), "magma": Magma(256)} {
		cs := r.Colors()
		if len(cs) != 256 {
			t.Fatalf("%s: %d colours", name, len(cs))
		}
		for i := 1; i < len(cs); i++ {
			if luminance(cs[i]) < luminance(cs[i-1])-1e-3 { // 8-bit rounding may dip by less
				t.Fatalf("%s: luminance falls at %d", name, i)
			}
		}
	}
	cs := PurpleOrange(255).Colors()
	mid := luminance(cs[127])
	for i := 1; i <= 127; i++ {
		if luminance(cs[i]) < luminance(cs[i-1])-1e-3 || luminance(cs[254-i]) < luminance(cs[255-i])-1e-3 {
			t.Fatalf("PurpleOrange: not lightest toward the middle at %d", i)
		}
	}
	if mid < 0.6 {
		t.Errorf("PurpleOrange middle luminance %.2f, want a light neutral", mid)
	}
	if luminance(Viridis(256).Colors()[255]) < 10*luminance(Viridis(256).Colors()[0]) {
		t.Error("viridis: ends too close in lightness")
	}
	// Stops land where they should: viridis starts at #440154, ends at #fde725.
	v := Viridis(11).Colors()
	if v[0] != rgb(0x44, 0x01, 0x54) || v[10] != rgb(0xfd, 0xe7, 0x25) || v[5] != rgb(0x21, 0x91, 0x8c) {
		t.Errorf("viridis stops %v %v %v", v[0], v[5], v[10])
	}
}

// The black or white text written in the cells of the logit lens and the
// sampler reads at WCAG's 4.5 : 1 at least across the palette.
func TestCellTextContrast(t *testing.T) {
	for name, th := range map[string]Theme{"dark": Dark(), "light": Light()} {
		for i := 0; i <= 100; i++ {
			p := float64(i) / 100
			if r := contrast(textOn(th, p), colorAt(th.Palette.Colors(), p)); r < 4.5 {
				t.Errorf("%s: text in a cell at p = %.2f: %.2f : 1", name, p, r)
			}
		}
	}
}
