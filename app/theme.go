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

func (t loupeTheme) Size(n fyne.ThemeSizeName) float32 {
	switch n {
	case theme.SizeNameText:
		return 15 * t.scale
	case theme.SizeNameSubHeadingText:
		return 19 * t.scale
	case theme.SizeNameHeadingText, theme.SizeNameCaptionText:
		return t.Theme.Size(n) * t.scale
	}
	return t.Theme.Size(n)
}

func (t loupeTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	return t.Theme.Color(n, t.variant(v))
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
	if !u.les.projector {
		u.app.Settings().SetTheme(newTheme(mode))
	}
	u.buildMenu()
	u.dirty = true
	u.refreshPanels()
}
