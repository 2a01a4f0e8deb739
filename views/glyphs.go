package views

import (
	"bytes"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"github.com/go-text/typesetting/font"
	"github.com/go-text/typesetting/fontscan"
	"github.com/go-text/typesetting/language"

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
	system *fontscan.FontMap // nil: the system's fonts could not be read
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
	if glyphs.system == nil {
		return false
	}
	glyphs.system.SetQuery(fontscan.Query{Families: []string{fontscan.SansSerif}})
	glyphs.system.SetScript(language.LookupScript(r))
	f := glyphs.system.ResolveFace(r)
	if f == nil {
		return false
	}
	_, ok := f.NominalGlyph(r)
	return ok
}

// loadGlyphs parses Fyne's fonts and indexes the system's (fontscan keeps
// its index in the user's cache directory, where Fyne's is too).
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
	fm := fontscan.NewFontMap(quiet{})
	if fm.UseSystemFonts("") == nil {
		glyphs.system = fm
	}
}

type quiet struct{}

func (quiet) Printf(string, ...interface{}) {}
