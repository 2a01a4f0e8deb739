package app

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// loupeTheme is Fyne's theme with larger text, for a projector.
type loupeTheme struct{ fyne.Theme }

func newTheme() fyne.Theme { return loupeTheme{theme.DefaultTheme()} }

func (t loupeTheme) Size(n fyne.ThemeSizeName) float32 {
	switch n {
	case theme.SizeNameText:
		return 15
	case theme.SizeNameSubHeadingText:
		return 19
	}
	return t.Theme.Size(n)
}

func (t loupeTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	return t.Theme.Color(n, v)
}
