package views

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"github.com/go-text/typesetting/font"
	"github.com/go-text/typesetting/fontscan"

	"loupe/trace"
	"loupe/trace/stats"
)

// faceOf parses a font resource of Fyne's theme.
func faceOf(t *testing.T, r fyne.Resource) *font.Face {
	t.Helper()
	f, err := font.ParseTTF(bytes.NewReader(r.Content()))
	if err != nil {
		t.Fatalf("%s: %v", r.Name(), err)
	}
	return f
}

// No text of the window uses a character that Fyne's text font lacks and
// its symbol font has: Fyne draws it from the symbol font and the space
// after it too, which that font lacks, as a missing-glyph box
// ("penalties →� temperature"). Characters neither has come from the
// system's fonts, whole words at a time, and draw.
func TestWindowTextsDrawEveryGlyph(t *testing.T) {
	text, symbol := faceOf(t, theme.DefaultTextFont()), faceOf(t, theme.DefaultSymbolFont())
	broken := func(r rune) bool {
		_, inText := text.NominalGlyph(r)
		_, inSymbol := symbol.NominalGlyph(r)
		return !inText && inSymbol
	}
	if !broken('→') || broken('⟶') || broken('a') {
		t.Fatal("the fonts are not the ones this test was written for: look again at which characters break")
	}
	for _, dir := range []string{".", "../app"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					return true
				}
				for _, r := range s {
					if broken(r) {
						t.Errorf("%s: %q: %q (U+%04X) draws with a box after it; write ⟶ or words", name, s, r, r)
						break
					}
				}
				return true
			})
		}
	}
}

// The window draws what its fonts (or the system's) have and names the
// rest: a character no font has shows as U+XXXX in the token stream.
func TestShownNamesUndrawable(t *testing.T) {
	for _, r := range []rune{'a', 'é', '¶', '·', '→', '🙂'} {
		if !CanDraw(r) {
			t.Errorf("%q (U+%04X): the window's own fonts draw it", r, r)
		}
	}
	if CanDraw(0x10FFFD) { // a private-use code point no font has
		t.Error("U+10FFFD said drawable")
	}
	if got := Shown(" a\U0010FFFD"); got != "·aU+10FFFD" {
		t.Errorf("Shown: %q", got)
	}
}

// CanDraw reads only the character maps of Fyne's fonts: they answer as
// the fully parsed faces do, over the planes the tokens come from.
func TestCmapOfAgreesWithTheParsedFace(t *testing.T) {
	for _, r := range []fyne.Resource{theme.DefaultTextFont(), theme.DefaultTextMonospaceFont(),
		theme.DefaultSymbolFont(), theme.DefaultEmojiFont()} {
		if s, ok := r.(*fyne.StaticResource); r == nil || ok && s == nil {
			continue
		}
		face := faceOf(t, r)
		c, err := cmapOf(r.Content())
		if err != nil {
			t.Fatalf("%s: %v", r.Name(), err)
		}
		n := 0
		for ch := rune(0); ch < 0x20000; ch++ {
			_, want := face.NominalGlyph(ch)
			_, got := c.Lookup(ch)
			if got != want {
				t.Fatalf("%s: U+%04X in the cmap %v, in the face %v", r.Name(), ch, got, want)
			}
			if got {
				n++
			}
		}
		if n < 20 {
			t.Errorf("%s: only %d characters: not the font this test was written for", r.Name(), n)
		}
	}
}

// A character only a large system font has (a CJK font: Fyne would parse
// all of it, tens of megabytes) is not drawable; one a small font has is.
func TestSmallFontsOnly(t *testing.T) {
	var small, large fontscan.RuneSet
	small.Add('ж')
	large.Add('ж')
	large.Add('你')
	fps := []fontscan.Footprint{{Location: font.FontID{File: "cjk.ttc"}, Runes: large}, {Location: font.FontID{File: "dejavu.ttf"}, Runes: small}}
	sizes := map[string]int64{"cjk.ttc": 19 << 20, "dejavu.ttf": 700 << 10}
	got, big := smallFonts(fps, func(f string) int64 { return sizes[f] })
	if len(got) != 1 || !covers(got, 'ж') || covers(got, '你') {
		t.Errorf("%d fonts kept; ж %v, 你 %v", len(got), covers(got, 'ж'), covers(got, '你'))
	}
	if len(big) != 1 || !covers(big, '你') {
		t.Errorf("%d large fonts; 你 %v", len(big), covers(big, '你'))
	}
}

// TestDrawLargeFonts: a character only a large font has is drawn once the
// user writes in its script (NeedsLargeFont) or works in a CJK locale,
// and written U+XXXX otherwise; the answers kept for CanDraw follow the
// switch.
func TestDrawLargeFonts(t *testing.T) {
	glyphs.once.Do(loadGlyphs)
	glyphs.mu.Lock()
	savedLarge, savedUse := glyphs.large, glyphs.useBig
	var large fontscan.RuneSet
	large.Add('你')
	glyphs.large, glyphs.useBig, glyphs.known = []fontscan.RuneSet{large}, false, map[rune]bool{}
	glyphs.mu.Unlock()
	defer func() {
		glyphs.mu.Lock()
		glyphs.large, glyphs.useBig, glyphs.known = savedLarge, savedUse, map[rune]bool{}
		glyphs.mu.Unlock()
	}()
	if CanDraw('你') && !hasSmallGlyph('你') {
		t.Fatal("a large font's character drawn before the user writes in its script")
	}
	if NeedsLargeFont("My cat is purple.") || !NeedsLargeFont("我的猫是紫色的。你") {
		t.Error("NeedsLargeFont: wrong for an English or a Chinese prompt")
	}
	if !DrawLargeFonts(true) || !CanDraw('你') || Shown("你") != "你" {
		t.Errorf("after DrawLargeFonts(true): CanDraw %v, shown %q", CanDraw('你'), Shown("你"))
	}
	if DrawLargeFonts(true) {
		t.Error("DrawLargeFonts(true) twice reports a change")
	}
	for env, want := range map[string]bool{"zh_CN.UTF-8": true, "ja_JP.UTF-8": true, "ko_KR": true, "en_GB.UTF-8": false, "": false} {
		if got := CJKLocale(func(k string) string {
			if k == "LANG" {
				return env
			}
			return ""
		}); got != want {
			t.Errorf("CJKLocale(LANG=%q) = %v", env, got)
		}
	}
	if !CJKLocale(func(k string) string { return map[string]string{"LC_ALL": "zh_TW", "LANG": "en_US"}[k] }) {
		t.Error("LC_ALL wins over LANG")
	}
}

// One glyph policy for every token text of the window: the strip's chips
// and the Compare tab's sentences write a token the same way, drawn where
// a font the window may use has its characters, U+XXXX where none has.
// A CJK token that only a large font has is written U+XXXX by both (it
// was drawn by Compare, named by the strip), and drawn by both once the
// large fonts are on (DrawLargeFonts).
func TestOneGlyphPolicy(t *testing.T) {
	newTestApp(t)
	glyphs.once.Do(loadGlyphs)
	glyphs.mu.Lock()
	savedLarge, savedUse := glyphs.large, glyphs.useBig
	var large fontscan.RuneSet
	large.Add('湘')
	large.Add('潭')
	glyphs.large, glyphs.useBig, glyphs.known = []fontscan.RuneSet{large}, false, map[rune]bool{}
	glyphs.mu.Unlock()
	defer func() {
		glyphs.mu.Lock()
		glyphs.large, glyphs.useBig, glyphs.known = savedLarge, savedUse, map[rune]bool{}
		glyphs.mu.Unlock()
	}()
	if hasSmallGlyph('湘') {
		t.Skip("a small system font has 湘: this machine draws it either way")
	}
	tok := trace.Token{ID: 7, Text: "湘潭\U0010FFFD", Pos: 0, Generated: true}
	both := func() (chip, compare string) {
		s := NewTokenStream()
		w := test.NewWindow(s)
		defer w.Close()
		w.Resize(fyne.NewSize(600, 200))
		s.SetTokens([]trace.Token{tok})
		for _, o := range test.LaidOutObjects(s) {
			if txt, ok := o.(*canvas.Text); ok && strings.Contains(txt.Text, "U+10FFFD") {
				chip = txt.Text
			}
		}
		line := DeltaLine(stats.Delta{Pos: 0, Token: trace.Candidate{Text: tok.Text, P: 0.5}, HasA: true, HasB: true, PB: 0.5})
		if i, j := strings.Index(line, "«"), strings.Index(line, "»"); i >= 0 && j > i {
			compare = line[i+len("«") : j]
		}
		return chip, compare
	}
	chip, compare := both()
	if chip != "U+6E58U+6F6DU+10FFFD" || compare != chip {
		t.Errorf("large fonts off: chip %q, Compare «%s»; want both U+6E58U+6F6DU+10FFFD", chip, compare)
	}
	DrawLargeFonts(true)
	chip, compare = both()
	if chip != "湘潭U+10FFFD" || compare != chip {
		t.Errorf("large fonts on: chip %q, Compare «%s»; want both 湘潭U+10FFFD", chip, compare)
	}
}

// No panel of the window writes a token's text but through Shown: the
// U+XXXX fallback is the same everywhere.
func TestTokenTextOnlyThroughShown(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Visible" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "format" {
					t.Errorf("%s: format.Visible draws a character no font has as a box: use Shown", name)
				}
			}
			return true
		})
	}
}
