package views

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"loupe/trace"
)

// Turned on, the legend is one line: its chips left of the hover line,
// whose text becomes the legend's sentence; the tokens keep every pixel
// of their room. Turned off, the hint comes back.
func TestConfidenceLegendIsOneLine(t *testing.T) {
	newTestApp(t)
	s := NewTokenStream()
	w := test.NewWindow(s)
	defer w.Close()
	w.Resize(fyne.NewSize(900, 140))
	s.SetTokens([]trace.Token{{ID: 1, Text: "My", Pos: 0}, {ID: 2, Text: " cat", Pos: 1, Generated: true}})
	listH, hint := s.list.Size().Height, s.HoverText()
	s.SetConfidence([]float64{0, 0.4}, "Perplexity 2.5.")
	l, hv := s.legend.box, s.hover
	if l.Size().Height < 10 || l.Size().Height > hv.MinSize().Height+1 || l.Position().X+l.Size().Width > hv.Position().X {
		t.Errorf("legend at %v, %v; hover line at %v", l.Position(), l.Size(), hv.Position())
	}
	if s.list.Size().Height < listH || s.HoverText() != "Perplexity 2.5." || s.Legend() != "Perplexity 2.5." {
		t.Errorf("with the legend the tokens have %v px (had %v); hover line %q", s.list.Size().Height, listH, s.HoverText())
	}
	s.SetConfidence(nil, "")
	if s.HoverText() != hint || s.Legend() != "" || l.Visible() {
		t.Errorf("turned off: hover line %q, legend %q", s.HoverText(), s.Legend())
	}
}
