package app

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// prefTheme remembers the View › theme choice: "", "dark" or "light".
const prefTheme = "theme"

// loupeTheme is Fyne's theme with larger text, for a projector, and an
// optional fixed variant: a light window often reads better on a projector
// whatever the laptop's setting.
type loupeTheme struct {
	fyne.Theme
	fixed *fyne.ThemeVariant // nil: follow the system
	scale float32            // type size factor: 1, or projectorScale
}

// newTheme makes the theme for a View › theme choice.
func newTheme(mode string) fyne.Theme {
	t := loupeTheme{Theme: theme.DefaultTheme(), scale: 1}
	switch mode {
	case "dark":
		v := theme.VariantDark
		t.fixed = &v
	case "light":
		v := theme.VariantLight
		t.fixed = &v
	}
	return t
}

// projectorScale is projector mode's type: 1.5 × the window's.
const projectorScale = 1.5

// projectorTheme is projector mode's: light, type 1.5 × larger.
func projectorTheme() fyne.Theme {
	t := newTheme("light").(loupeTheme)
	t.scale = projectorScale
	return t
}

// cardTextSize is the lesson card's text where projector type does not
// fit its column: halfway between the window's type and projector type.
const cardTextSize fyne.ThemeSizeName = "loupe.cardText"

func (t loupeTheme) Size(n fyne.ThemeSizeName) float32 {
	switch n {
	case theme.SizeNameText:
		return 15 * t.scale
	case cardTextSize:
		return 15 * (1 + t.scale) / 2
	case theme.SizeNameSubHeadingText:
		return 19 * t.scale
	case theme.SizeNameHeadingText, theme.SizeNameCaptionText:
		return t.Theme.Size(n) * t.scale
	}
	return t.Theme.Size(n)
}

func (t loupeTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	v = t.variant(v)
	if c, ok := legible[v][n]; ok {
		return c
	}
	return t.Theme.Color(n, v)
}

// legible replaces Fyne's colours that text is drawn in, or on, where they
// read below WCAG's 4.5 : 1 against the backgrounds they sit on (measured:
// the dimmed grey of hints and captions 1.2–1.6 : 1 in both variants, the
// light placeholder 3.2, the blue of tabs and links 3.3 on dark buttons,
// light orange and green 1.3–2.2). Dark: lighter accents with near-black
// text on them; light: darker accents with white text. A projector washes
// out what a laptop screen shows; TestThemeTextContrast holds every pair.
var legible = map[fyne.ThemeVariant]map[fyne.ThemeColorName]color.Color{
	theme.VariantDark: {
		theme.ColorNameDisabled:            rgb(0x9a9a9f),
		theme.ColorNamePlaceHolder:         rgb(0xa8a8ad),
		theme.ColorNamePrimary:             rgb(0x6ea8ff),
		theme.ColorNameHyperlink:           rgb(0x6ea8ff),
		theme.ColorNameForegroundOnPrimary: rgb(0x0c0c0d),
		theme.ColorNameError:               rgb(0xff6e62),
		theme.ColorNameForegroundOnError:   rgb(0x0c0c0d),
	},
	theme.VariantLight: {
		theme.ColorNameForeground:          rgb(0x1f1f1f), // on the tinted chips of generated tokens too
		theme.ColorNameDisabled:            rgb(0x696969),
		theme.ColorNamePlaceHolder:         rgb(0x696969),
		theme.ColorNamePrimary:             rgb(0x1a5fd6),
		theme.ColorNameHyperlink:           rgb(0x1a5fd6),
		theme.ColorNameForegroundOnPrimary: rgb(0xffffff),
		theme.ColorNameError:               rgb(0xc62828),
		theme.ColorNameForegroundOnError:   rgb(0xffffff),
		theme.ColorNameWarning:             rgb(0xa65400),
		theme.ColorNameForegroundOnWarning: rgb(0xffffff),
		theme.ColorNameSuccess:             rgb(0x2e7d32),
		theme.ColorNameForegroundOnSuccess: rgb(0xffffff),
	},
}

func rgb(x uint32) color.NRGBA {
	return color.NRGBA{R: uint8(x >> 16), G: uint8(x >> 8), B: uint8(x), A: 255}
}

// variant is the variant drawn when the system asks for v.
func (t loupeTheme) variant(v fyne.ThemeVariant) fyne.ThemeVariant {
	if t.fixed != nil {
		return *t.fixed
	}
	return v
}

// variant is the variant the window is drawn in.
func (u *UI) variant() fyne.ThemeVariant {
	v := u.app.Settings().ThemeVariant()
	if t, ok := u.app.Settings().Theme().(loupeTheme); ok {
		return t.variant(v)
	}
	return v
}

// setTheme applies and remembers a View › theme choice.
func (u *UI) setTheme(mode string) {
	u.app.Preferences().SetString(prefTheme, mode)
	if !u.lessonMode.projector {
		u.app.Settings().SetTheme(newTheme(mode))
	}
	u.menus.buildMenu()
	u.dirty = true
	u.refreshPanels()
}
