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
