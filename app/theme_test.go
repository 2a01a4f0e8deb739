package app

import (
	"fmt"
	"image/color"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"loupe/format"
)

// Every colour text is drawn in reads at WCAG's 4.5 : 1 at least against
// every background it is drawn on, in both variants: plain, dimmed
// (hints, captions, paths: Fyne's low importance is its disabled colour),
// placeholder, accents, text on accent buttons, and the token chips of
// the stream (translucent fills over the window's background).
func TestThemeTextContrast(t *testing.T) {
	texts := []fyne.ThemeColorName{theme.ColorNameForeground, theme.ColorNameDisabled, theme.ColorNamePlaceHolder,
		theme.ColorNamePrimary, theme.ColorNameHyperlink, theme.ColorNameError, theme.ColorNameWarning, theme.ColorNameSuccess}
	grounds := []fyne.ThemeColorName{theme.ColorNameBackground, theme.ColorNameInputBackground, theme.ColorNameButton,
		theme.ColorNameOverlayBackground, theme.ColorNameMenuBackground, theme.ColorNameHeaderBackground}
	onAccent := [][2]fyne.ThemeColorName{
		{theme.ColorNameForegroundOnPrimary, theme.ColorNamePrimary}, // Generate, Switch off and rerun
		{theme.ColorNameForegroundOnError, theme.ColorNameError},     // Stop
		{theme.ColorNameForegroundOnWarning, theme.ColorNameWarning},
		{theme.ColorNameForegroundOnSuccess, theme.ColorNameSuccess},
	}
	for _, mode := range []string{"dark", "light"} {
		th := newTheme(mode)
		v := th.(loupeTheme).variant(theme.VariantDark)
		c := func(n fyne.ThemeColorName) color.Color { return th.Color(n, v) }
		check := func(what string, fg, bg color.Color) {
			if r := format.Contrast(fg, bg); r < 4.5 {
				t.Errorf("%s theme: %s: %.2f : 1, want ≥ 4.5", mode, what, r)
			}
		}
		for _, fg := range texts {
			for _, bg := range grounds {
				check(string(fg)+" on "+string(bg), c(fg), c(bg))
			}
		}
		for _, p := range onAccent {
			check(string(p[0])+" on "+string(p[1]), c(p[0]), c(p[1]))
		}
		// Token chips (views/tokens.go): generated ones filled with the
		// primary colour at alpha 0x60, chat control tokens with success at
		// 0x50, the thinking draft dimmed; all over the window's background.
		bg := c(theme.ColorNameBackground)
		tint := func(n fyne.ThemeColorName, a uint8) color.Color {
			r, g, b, _ := c(n).RGBA()
			return format.Over(color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), a}, bg)
		}
		check("a generated token's chip", c(theme.ColorNameForeground), tint(theme.ColorNamePrimary, 0x60))
		check("a control token's chip", c(theme.ColorNameForeground), tint(theme.ColorNameSuccess, 0x50))
		check("the highlighted bar (views/bars.go)", c(theme.ColorNameForeground), tint(theme.ColorNameWarning, 0x40))
		// View › Colour written tokens by probability: every colour of
		// the ramp, at its alpha, under the chips' text and the legend's.
		for p := 0.0; p <= 1; p += 0.01 {
			fill := withA(format.Confidence.At(p), format.ConfidenceAlpha)
			check(fmt.Sprintf("a written token's chip coloured for p = %.2f", p), c(theme.ColorNameForeground), format.Over(fill, bg))
		}
		check("a thinking token's chip", c(theme.ColorNameDisabled), format.Over(withA(c(theme.ColorNameInputBackground), 0x20), bg))
	}
}

func withA(c color.Color, a uint8) color.NRGBA {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), a}
}
