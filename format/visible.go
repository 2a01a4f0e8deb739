package format

import (
	"fmt"
	"strings"
)

// Empty is what an empty token piece shows: a word every font can draw
// (the figures' font has no "∅").
const Empty = "(empty)"

// Visible makes a token piece's whitespace visible: space '·', newline
// '¶', tab '→', carriage return `\r`, other control characters \xNN; an
// empty piece is Empty. Every token chip, bar label, caption, figure and
// CSV cell shows a token through it.
func Visible(tok string) string { return VisibleIn(tok, nil) }

// VisibleIn is Visible for a font that cannot draw every character:
// a rune from U+0080 up that drawable refuses (CJK or emoji in a figure
// font) is written U+XXXX instead of vanishing. A nil drawable draws all.
func VisibleIn(tok string, drawable func(rune) bool) string {
	if tok == "" {
		return Empty
	}
	var b strings.Builder
	for _, r := range tok {
		switch {
		case r == ' ':
			b.WriteRune('·')
		case r == '\n':
			b.WriteRune('¶')
		case r == '\t':
			b.WriteRune('→')
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && drawable != nil && !drawable(r):
			fmt.Fprintf(&b, "U+%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// OneLine puts a text on one line for a place that draws one (a menu, a
// drop-down, a title): each line break becomes " ¶ " and a tab a space,
// instead of the missing-glyph box a font draws for them ("KING RICHARD
// III:\nNow" showed as "III:�Now" in the prompt history).
func OneLine(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.NewReplacer("\n", " ¶ ", "\r", " ¶ ", "\t", " ").Replace(s)
	return s
}

// Glyphs writes each rune of s from U+0080 up that drawable refuses as
// "<U+XXXX>", so that a figure whose font lacks CJK or emoji shows where
// a character was ("MLP of «<U+4F60>»") instead of dropping it ("MLP of
// «»"). Whitespace and ASCII are kept as they are; a nil drawable draws
// all.
func Glyphs(s string, drawable func(rune) bool) string {
	if drawable == nil {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r >= 0x80 && !drawable(r) {
			fmt.Fprintf(&b, "<U+%04X>", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
