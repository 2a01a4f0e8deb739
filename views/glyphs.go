package views

import (
	"bytes"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"github.com/go-text/typesetting/font"
	"github.com/go-text/typesetting/fontscan"

	"loupe/format"
)

// Shown is a token's text as the window shows it: whitespace made visible
// (format.Visible) and a character no font can draw written U+XXXX, not a
// box that says nothing.
func Shown(tok string) string { return format.VisibleIn(tok, CanDraw) }

// glyphs answers CanDraw: Fyne's own fonts, then the system's, which Fyne
// falls back to for a character its own lack (CJK, most scripts). The
// answers are kept: a token stream asks about the same characters again.
var glyphs struct {
	once   sync.Once
	mu     sync.Mutex
	own    []*font.Face
	system []fontscan.RuneSet // the system fonts' coverage, from fontscan's index
	known  map[rune]bool
}

// CanDraw reports whether the window has a glyph for r.
func CanDraw(r rune) bool {
	if r < 0x80 {
		return true
	}
	glyphs.once.Do(loadGlyphs)
	glyphs.mu.Lock()
	defer glyphs.mu.Unlock()
	if ok, seen := glyphs.known[r]; seen {
		return ok
	}
	ok := hasGlyph(r)
	glyphs.known[r] = ok
	return ok
}

func hasGlyph(r rune) bool {
	for _, f := range glyphs.own {
		if _, ok := f.NominalGlyph(r); ok {
			return true
		}
	}
	for _, runes := range glyphs.system {
		if runes.Contains(r) {
			return true
		}
	}
	return false
}

// loadGlyphs parses Fyne's fonts and reads the system fonts' coverage
// from fontscan's index (kept in the user's cache directory, where Fyne's
// is too): asking a face for the glyph loaded the whole font, 18 MB of
// heap for a CJK font that Fyne's own fallback holds once already.
func loadGlyphs() {
	glyphs.known = map[rune]bool{}
	for _, res := range []fyne.Resource{theme.DefaultTextFont(), theme.DefaultTextMonospaceFont(),
		theme.DefaultSymbolFont(), theme.DefaultEmojiFont()} {
		if s, ok := res.(*fyne.StaticResource); res == nil || ok && s == nil {
			continue // the emoji font is left out of some builds
		}
		if f, err := font.ParseTTF(bytes.NewReader(res.Content())); err == nil {
			glyphs.own = append(glyphs.own, f)
		}
	}
	fps, _ := fontscan.SystemFonts(quiet{}, "") // none read: only Fyne's own fonts count
	for _, fp := range fps {
		glyphs.system = append(glyphs.system, fp.Runes)
	}
}

type quiet struct{}

func (quiet) Printf(string, ...interface{}) {}
