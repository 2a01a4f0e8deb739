package views

import (
	"bytes"
	"os"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"github.com/go-text/typesetting/font"
	"github.com/go-text/typesetting/font/opentype"
	"github.com/go-text/typesetting/font/opentype/tables"
	"github.com/go-text/typesetting/fontscan"

	"loupe/format"
)

// Shown is a token's text as the window shows it: whitespace made visible
// (format.Visible) and a character no font can draw written U+XXXX, not a
// box that says nothing. Every panel writes token text through it, so a
// token reads the same in the strip, the tabs and their sentences.
func Shown(tok string) string { return format.VisibleIn(tok, CanDraw) }

// glyphs answers CanDraw: Fyne's own fonts, then the system's, which Fyne
// falls back to for a character its own lack (CJK, most scripts). The
// answers are kept: a token stream asks about the same characters again.
var glyphs struct {
	once   sync.Once
	mu     sync.Mutex
	own    []font.Cmap        // Fyne's fonts' character maps
	system []fontscan.RuneSet // the small system fonts' coverage, from fontscan's index
	large  []fontscan.RuneSet // the large ones' (CJK): drawn from only when DrawLargeFonts
	useBig bool
	known  map[rune]bool
}

// DrawLargeFonts lets the token stream draw characters that only a large
// system font has (maxFallbackFont) when the text the user writes needs
// one (NeedsLargeFont) or the user's locale is Chinese, Japanese or
// Korean: a class that works in that script reads its tokens, and a
// random CJK token in an English lesson, which would cost a CJK font's
// tens of MB, is written U+XXXX. It reports whether the choice changed.
func DrawLargeFonts(on bool) bool {
	glyphs.once.Do(loadGlyphs)
	glyphs.mu.Lock()
	defer glyphs.mu.Unlock()
	if on == glyphs.useBig {
		return false
	}
	glyphs.useBig, glyphs.known = on, map[rune]bool{}
	return true
}

// NeedsLargeFont reports whether text has a character that no small font
// has and a large one does: the user writes in a script such as Chinese.
func NeedsLargeFont(text string) bool {
	glyphs.once.Do(loadGlyphs)
	glyphs.mu.Lock()
	defer glyphs.mu.Unlock()
	for _, r := range text {
		if r >= 0x80 && !hasSmallGlyph(r) && covers(glyphs.large, r) {
			return true
		}
	}
	return false
}

// CJKLocale reports whether the locale environment (LC_ALL, LC_CTYPE,
// LANG, in POSIX order) names Chinese, Japanese or Korean.
func CJKLocale(getenv func(string) string) bool {
	for _, k := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := getenv(k); v != "" {
			return strings.HasPrefix(v, "zh") || strings.HasPrefix(v, "ja") || strings.HasPrefix(v, "ko")
		}
	}
	return false
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
	return hasSmallGlyph(r) || glyphs.useBig && covers(glyphs.large, r)
}

// hasSmallGlyph: Fyne's own fonts, then the small system fonts.
func hasSmallGlyph(r rune) bool {
	for _, c := range glyphs.own {
		if _, ok := c.Lookup(r); ok {
			return true
		}
	}
	return covers(glyphs.system, r)
}

func covers(sets []fontscan.RuneSet, r rune) bool {
	for _, runes := range sets {
		if runes.Contains(r) {
			return true
		}
	}
	return false
}

// loadGlyphs reads the character maps of Fyne's fonts and the system
// fonts' coverage from fontscan's index (kept in the user's cache
// directory, where Fyne's is too). Parsing a whole font for its glyphs
// would cost what Fyne's own copy does again: 7 MB of heap for Fyne's
// four fonts (the emoji font's 4 MB file), 18 MB for a CJK system font.
func loadGlyphs() {
	glyphs.known = map[rune]bool{}
	for _, res := range []fyne.Resource{theme.DefaultTextFont(), theme.DefaultTextMonospaceFont(),
		theme.DefaultSymbolFont(), theme.DefaultEmojiFont()} {
		if s, ok := res.(*fyne.StaticResource); res == nil || ok && s == nil {
			continue // the emoji font is left out of some builds
		}
		if c, err := cmapOf(res.Content()); err == nil {
			glyphs.own = append(glyphs.own, c)
		}
	}
	fps, _ := fontscan.SystemFonts(quiet{}, "") // none read: only Fyne's own fonts count
	glyphs.system, glyphs.large = smallFonts(fps, fileSize)
	glyphs.useBig = CJKLocale(os.Getenv)
}

// smallFonts is the coverage of the fonts whose files weigh at most
// maxFallbackFont bytes, and that of the larger ones.
func smallFonts(fps []fontscan.Footprint, size func(file string) int64) (small, large []fontscan.RuneSet) {
	for _, fp := range fps {
		switch n := size(fp.Location.File); {
		case n > 0 && n <= maxFallbackFont:
			small = append(small, fp.Runes)
		case n > maxFallbackFont:
			large = append(large, fp.Runes)
		}
	}
	return small, large
}

// fileSize is a file's size, 0 when unknown.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// maxFallbackFont is the largest system font file a token's character is
// drawn from unless DrawLargeFonts; a character only larger fonts have is
// then written U+XXXX. Fyne
// parses a fallback font whole and keeps it: Droid Sans Fallback (4 MB,
// CJK) took 18 MB of heap for one random token, Noto Sans CJK (16-20 MB
// files) takes several times that. The fonts of alphabetic scripts
// (DejaVu: 0.7 MB for Latin, Greek, Cyrillic, Hebrew, Arabic) stay.
const maxFallbackFont = 3 << 20

// cmapOf reads a font file's character map, and nothing else of it.
func cmapOf(file []byte) (font.Cmap, error) {
	ld, err := opentype.NewLoader(bytes.NewReader(file))
	if err != nil {
		return nil, err
	}
	raw, err := ld.RawTable(opentype.MustNewTag("cmap"))
	if err != nil {
		return nil, err
	}
	t, _, err := tables.ParseCmap(raw)
	if err != nil {
		return nil, err
	}
	c, _, err := font.ProcessCmap(t, tables.FPNone)
	return c, err
}

type quiet struct{}

func (quiet) Printf(string, ...interface{}) {}
