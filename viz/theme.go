package viz

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"loupe/i18n"
)

// Theme holds every colour and the text size a figure uses, so a figure
// drawn for a dark window has no white rectangle in it.
//
// The accent colours come from the Okabe–Ito set, which stays distinct for
// the common forms of colour blindness; the heatmap palettes are
// ordered in lightness (viridis, and ColorBrewer's purple–orange for signed values).
type Theme struct {
	Background, Foreground, Grid, Accent, Highlight, Prefill, Decode color.Color

	// Negative colours bars below zero (MLP values, embeddings).
	Negative color.Color

	// Palette maps 0..1 (attention shares) from low to high.
	Palette palette.Palette
	// Diverging maps signed values (keys, values): negative, 0, positive.
	Diverging palette.Palette

	// FontSize is the body text size; titles are 1.25× larger. 12 pt at
	// 96 DPI is 16 px, readable on a projector.
	FontSize vg.Length

	// Count is how layers and heads are numbered in labels (zero: from 1).
	Count Numbering

	// Lang is the language of the labels, titles and notes, and of the
	// numbers in them (zero: English).
	Lang i18n.Lang
}

// Dark is the theme for a dark window.
func Dark() Theme {
	return Theme{
		Background: rgb(0x1e, 0x1f, 0x24),
		Foreground: rgb(0xe8, 0xe8, 0xec),
		Grid:       rgb(0x55, 0x58, 0x62),
		Accent:     rgb(0x56, 0xb4, 0xe9), // sky blue
		Highlight:  rgb(0xe6, 0x9f, 0x00), // orange
		Prefill:    rgb(0x56, 0xb4, 0xe9),
		Decode:     rgb(0xe6, 0x9f, 0x00),
		Negative:   rgb(0xcc, 0x79, 0xa7), // reddish purple
		Palette:    Viridis(256),
		Diverging:  PurpleOrange(256),
		FontSize:   12,
	}
}

// Light is the theme for a light window or a printed page.
func Light() Theme {
	return Theme{
		Background: color.White,
		Foreground: rgb(0x1a, 0x1a, 0x1a),
		Grid:       rgb(0xc8, 0xc8, 0xc8),
		Accent:     rgb(0x00, 0x72, 0xb2), // blue
		Highlight:  rgb(0xd5, 0x5e, 0x00), // vermillion
		Prefill:    rgb(0x00, 0x72, 0xb2),
		Decode:     rgb(0xd5, 0x5e, 0x00),
		Negative:   rgb(0xcc, 0x79, 0xa7),
		Palette:    Viridis(256),
		Diverging:  PurpleOrange(256),
		FontSize:   12,
	}
}

func rgb(r, g, b uint8) color.Color { return color.NRGBA{R: r, G: g, B: b, A: 255} }

// complete fills the fields a caller left zero from Dark, so a zero Theme
// still draws readably.
func (th Theme) complete() Theme {
	d := Dark()
	fill := func(c *color.Color, def color.Color) {
		if *c == nil {
			*c = def
		}
	}
	fill(&th.Background, d.Background)
	fill(&th.Foreground, d.Foreground)
	fill(&th.Grid, d.Grid)
	fill(&th.Accent, d.Accent)
	fill(&th.Highlight, d.Highlight)
	fill(&th.Prefill, d.Prefill)
	fill(&th.Decode, d.Decode)
	fill(&th.Negative, d.Negative)
	if th.Palette == nil || len(th.Palette.Colors()) == 0 {
		th.Palette = d.Palette
	}
	if th.Diverging == nil || len(th.Diverging.Colors()) == 0 {
		th.Diverging = d.Diverging
	}
	if th.FontSize <= 0 {
		th.FontSize = d.FontSize
	}
	return th
}

// sans is the embedded Liberation Sans: no system font needed, and a sans
// face reads better than the default serif on a screen or projector.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// text returns a text style of the given size and colour.
func (th Theme) text(size vg.Length, c color.Color) text.Style {
	return text.Style{
		Color:   c,
		Font:    font.From(sans, size),
		XAlign:  draw.XLeft,
		YAlign:  draw.YBottom,
		Handler: plot.DefaultTextHandler,
	}
}

func (th Theme) body() text.Style  { return th.text(th.FontSize, th.Foreground) }
func (th Theme) title() text.Style { return th.text(th.FontSize*1.25, th.Foreground) }

// newPlot returns a plot whose background, axes, ticks and legend all use
// the theme.
func (th Theme) newPlot() *plot.Plot {
	p := plot.New()
	p.BackgroundColor = th.Background
	p.Title.TextStyle.Font = font.From(sans, th.FontSize*1.25)
	p.Title.TextStyle.Color = th.Foreground
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Color = th.Foreground
		a.Width = vg.Points(1)
		a.Label.TextStyle.Font = font.From(sans, th.FontSize)
		a.Label.TextStyle.Color = th.Foreground
		a.Tick.Label.Font = font.From(sans, th.FontSize)
		a.Tick.Label.Color = th.Foreground
		a.Tick.Color = th.Foreground
		a.Tick.Width = vg.Points(1)
		a.Tick.Marker = langTicks{num: th.num()}
	}
	p.Legend.TextStyle.Font = font.From(sans, th.FontSize)
	p.Legend.TextStyle.Color = th.Foreground
	return p
}
