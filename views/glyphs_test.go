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
	"fyne.io/fyne/v2/theme"
	"github.com/go-text/typesetting/font"
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
