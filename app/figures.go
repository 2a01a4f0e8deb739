package app

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"loupe/views"
	"loupe/viz"
)

// exportW and exportH are the size of an exported figure, in pixels at
// viz.DPI: a 3:2 slide.
const exportW, exportH = 1500, 1000

// vizTheme matches the figures to the window's light or dark variant.
func (u *UI) vizTheme() viz.Theme {
	th := viz.Dark()
	if u.variant() == theme.VariantLight {
		th = viz.Light()
	}
	th.Count = u.st.Count // View › Count layers and heads, exports included
	th.Lang = views.Lang
	return th
}

// figure is the viz figure of a panel for the current selection; false
// when the panel has none (it is then exported as the window shows it).
func (u *UI) figure(panel string) (viz.Figure, bool) {
	e, ok := u.menus.exports[panel]
	if !ok {
		return nil, false
	}
	f := e.Figure()
	return f, f != nil
}

// exportersByName are the panels by the names the exports and --export
// use; each exports itself.
func (u *UI) exportersByName() map[string]views.Exporter {
	exports := map[string]views.Exporter{"head": u.attn.HeadExport()}
	for _, p := range u.panels {
		exports[p.Name()] = p
	}
	return exports
}

// renderFigure encodes a figure as PNG or SVG.
func renderFigure(f viz.Figure, format string) ([]byte, error) {
	w, h := viz.Pixels(exportW, viz.DPI), viz.Pixels(exportH, viz.DPI)
	switch format {
	case "png":
		return viz.PNG(f, w, h)
	case "svg":
		return viz.SVG(f, w, h)
	}
	return nil, fmt.Errorf("unknown export format %q", format)
}

var _ fyne.Theme = loupeTheme{}
