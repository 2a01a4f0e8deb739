package views

import (
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"loupe/trace"
)

// After a branch the strip gets the new run's tokens: the hover line no
// longer names the token that was hovered before, which the branch
// replaced.
func TestTokenStreamForgetsReplacedHover(t *testing.T) {
	newTestApp(t)
	s := NewTokenStream()
	w := test.NewWindow(s)
	defer w.Close()
	w.Resize(fyne.NewSize(600, 200))
	s.SetTokens([]trace.Token{{ID: 1, Text: "My", Pos: 0}, {ID: 2, Text: " cat", Pos: 1, Generated: true}})
	test.MoveMouse(w.Canvas(), fyne.NewPos(theme.Padding()+chipWidth("My")+chipWidth(" cat")/2, chipHeight()/2))
	if !strings.Contains(s.HoverText(), "«·cat»") {
		t.Fatalf("hovering «·cat»: %q", s.HoverText())
	}
	s.SetTokens([]trace.Token{{ID: 1, Text: "My", Pos: 0}, {ID: 3, Text: " dog", Pos: 1, Generated: true}})
	if strings.Contains(s.HoverText(), "cat") {
		t.Errorf("after the branch the hover line still says %q", s.HoverText())
	}
}

// attRun is a run of three prompt tokens and two written ones whose
// attention at position 4 (one layer, two heads) looks most at
// position 1, captured.
func attRun(written ...int) *trace.Run {
	r := &trace.Run{Tokens: toks(1, 2, 3)}
	for i, id := range written {
		r.Tokens = append(r.Tokens, trace.Token{ID: id, Pos: 3 + i, Generated: true})
		c := trace.Candidate{ID: id, Text: "x", P: 0.5}
		r.Steps = append(r.Steps, trace.Step{Pos: 3 + i, Chosen: c, Top: []trace.Candidate{c}})
	}
	w := []float32{0.1, 0.6, 0.1, 0.1, 0.1}
	r.Attention = []trace.Attention{{QueryPos: 4, Weights: [][][]float32{{w, w}}}}
	return r
}

// With a query chosen and the source left to the grid (its strongest,
// outlined in the strip), Compare shows the grids of that source: it
// asked to "choose a query token" with both on screen, and drew none.
func TestCompareGridsOfTheStrongestSource(t *testing.T) {
	a, b := attRun(5, 6), attRun(7, 6) // a branch: B wrote 7 where A wrote 5
	c := Compare(a, b, 4, 4, -1)
	if !c.HasGrids || c.SourceA != 1 || c.SourceB != 1 {
		t.Errorf("source %d / %d, grids %v: %q", c.SourceA, c.SourceB, c.HasGrids, c.GridNote)
	}
	if c := Compare(a, b, 4, 2, 3); c.HasGrids || c.GridNote != tr("views.cmp.choose", nil) {
		t.Errorf("a source after the query: grids %v, %q", c.HasGrids, c.GridNote)
	}
}

// A value longer than the value column's 190 pixels ("1.2 s + 12.3 s
// (643.9 tok/s)", run B's timing in Compare) is drawn whole inside the
// bars' width.
func TestBarsValueFits(t *testing.T) {
	newTestApp(t)
	b := NewBars()
	b.LabelWidth = 30
	long := "1.234 s + 12.345 s (643.9 tok/s) and more"
	b.SetBars([]Bar{{Label: "A", Segments: []float64{0.5}, Value: "1 s"}, {Label: "B", Segments: []float64{1}, Value: long}})
	w := test.NewWindow(b)
	defer w.Close()
	w.Resize(fyne.NewSize(500, 200))
	b.Resize(fyne.NewSize(420, b.MinSize().Height)) // room for the value, not for 190 px more
	seen := false
	for _, o := range test.WidgetRenderer(b).Objects() {
		if txt, ok := o.(*canvas.Text); ok && txt.Text == long {
			seen = true
			if end := txt.Position().X + txt.MinSize().Width; end > b.Size().Width+1 {
				t.Errorf("%q ends at %v, past the bars' width %v", txt.Text, end, b.Size().Width)
			}
		}
	}
	if !seen {
		t.Error("the long value is not drawn")
	}
}

// A label wider than LabelWidth (a long token's name under projector
// type, beside the top-10's bars) starts inside the bars, not left of
// them, where the bars have the room.
func TestBarsLabelFits(t *testing.T) {
	newTestApp(t)
	b := NewBars()
	b.LabelWidth = 60
	long := "U+0E28U+0E31U+0E01"
	b.SetBars([]Bar{{Label: "a", Segments: []float64{0.5}, Value: "1 %"}, {Label: long, Segments: []float64{1}, Value: "2 %"}})
	w := test.NewWindow(b)
	defer w.Close()
	w.Resize(fyne.NewSize(700, 200))
	b.Resize(fyne.NewSize(600, b.MinSize().Height))
	seen := false
	for _, o := range test.WidgetRenderer(b).Objects() {
		if txt, ok := o.(*canvas.Text); ok && txt.Text == long {
			seen = true
			left := txt.Position().X
			if txt.Alignment == fyne.TextAlignTrailing {
				left += txt.Size().Width - txt.MinSize().Width
			}
			if left < 0 {
				t.Errorf("%q starts at %v, left of the bars", txt.Text, left)
			}
		}
	}
	if !seen {
		t.Error("the long label is not drawn")
	}
}

// A strip scrolled to its end shows the source's row and the query's
// once both are set, where it has the rows for them.
func TestTokenStreamRevealsTheSource(t *testing.T) {
	newTestApp(t)
	s := NewTokenStream()
	w := test.NewWindow(s)
	defer w.Close()
	toks := make([]trace.Token, 60)
	for i := range toks {
		toks[i] = trace.Token{ID: i, Text: fmt.Sprintf(" t%d", i), Pos: i}
	}
	s.SetTokens(toks)
	w.Resize(fyne.NewSize(300, 2*chipHeight()+s.hover.MinSize().Height+4*theme.Padding()))
	if s.Rows() < 6 {
		t.Fatalf("60 tokens in %d rows: the strip does not scroll", s.Rows())
	}
	s.list.ScrollToBottom()
	query := s.rows[3][0]
	source := s.rows[2][0]
	s.SetSelected(query)
	s.SetSource(source)
	for _, pos := range []int{source, query} {
		seen := false
		for _, o := range Layout(w.Content(), w.Canvas().Size(), nil) {
			if o.Kind == "token" && o.Visible && o.Text == Shown(toks[pos].Text) && o.Pos.Y >= 0 {
				seen = true
			}
		}
		if !seen {
			t.Errorf("position %d (row %d) not drawn", pos, s.rowOf(pos))
		}
	}
}
