package viz

import (
	"math"
	"sync"

	"gonum.org/v1/plot/font"

	"loupe/format"
)

// The numbers the figures show are computed in loupe/trace/stats and
// written by loupe/format, the same functions the window and the exports
// call; this file holds only what depends on the figures' font.

// visible is format.Visible for the figures' font: a character the
// embedded font cannot draw (CJK, emoji: it would vanish) is written
// U+XXXX.
func visible(tok string) string { return format.VisibleIn(tok, hasGlyph) }

// drawable is a title or a note as the figures' font can draw it: a
// character it lacks is written <U+XXXX> (a title the window composed
// with a CJK token lost it: "MLP of «» (position 1284)").
func drawable(s string) string { return format.Glyphs(s, hasGlyph) }

// quote is visible between typographic quotes, cut to at most 24 runes.
func quote(tok string) string { return "“" + cutToken(tok) + "”" }

// cutToken is visible cut to at most 24 runes.
func cutToken(tok string) string {
	r := []rune(visible(tok))
	if len(r) > 24 {
		r = append(r[:23], '…')
	}
	return string(r)
}

func finiteOr0(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}

// sansFace is the embedded font the figures are drawn in.
var sansFace = sync.OnceValue(func() font.Face { return font.DefaultCache.Lookup(sans, 12) })

// hasGlyph reports whether the figures' font has a glyph for r.
func hasGlyph(r rune) bool {
	f := sansFace().Face
	if f == nil {
		return true
	}
	i, err := f.GlyphIndex(nil, r)
	return err == nil && i != 0
}
