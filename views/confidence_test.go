package views

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"loupe/trace"
)

// Turned on after the stream was laid out, the legend takes lines of its
// own above the hover line (it was drawn over it, at zero size, until the
// stream was laid out again), and gives them back when turned off.
func TestConfidenceLegendTakesItsLines(t *testing.T) {
	newTestApp(t)
	s := NewTokenStream()
	w := test.NewWindow(s)
	defer w.Close()
	w.Resize(fyne.NewSize(900, 300))
	s.SetTokens([]trace.Token{{ID: 1, Text: "My", Pos: 0}, {ID: 2, Text: " cat", Pos: 1, Generated: true}})
	s.SetConfidence([]float64{0, 0.4}, "Perplexity 2.5.")
	l := s.legend.box
	if l.Size().Height < 10 || l.Position().Y+l.Size().Height > s.hover.Position().Y {
		t.Fatalf("legend at y %v, %v high; hover line at y %v", l.Position().Y, l.Size().Height, s.hover.Position().Y)
	}
	listH := s.list.Size().Height
	s.SetConfidence(nil, "")
	if s.list.Size().Height <= listH || s.Legend() != "" {
		t.Errorf("turned off, the tokens keep %v px (had %v); legend %q", s.list.Size().Height, listH, s.Legend())
	}
}
