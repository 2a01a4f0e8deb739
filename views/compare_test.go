package views

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"loupe/trace"
	"loupe/trace/stats"
)

func toks(ids ...int) []trace.Token {
	out := make([]trace.Token, len(ids))
	for i, id := range ids {
		out[i] = trace.Token{ID: id, Pos: i, Text: string(rune('a' + id%26))}
	}
	return out
}

func TestAlignSubstitution(t *testing.T) {
	a := toks(1, 2, 3, 4, 5, 9, 9) // 5 prompt + 2 generated
	b := toks(1, 2, 7, 4, 5, 9, 8)
	al := stats.Align(a, b, 5, 5)
	if al.Same || !al.Substituted || al.ChangedA != [2]int{2, 3} {
		t.Fatalf("alignment %+v", al)
	}
	for i := range a {
		if al.AtoB[i] != i || al.BtoA[i] != i {
			t.Fatalf("position %d maps to %d / %d", i, al.AtoB[i], al.BtoA[i])
		}
	}
	if !strings.Contains(DescribeAlignment(al, a, b), "position 2:") {
		t.Errorf("describe: %s", DescribeAlignment(al, a, b))
	}
	if stats.FirstDivergence(a, b) != 2 {
		t.Errorf("first divergence %d", stats.FirstDivergence(a, b))
	}
}

func TestAlignInsertion(t *testing.T) {
	a := toks(1, 2, 3, 4, 5)
	b := toks(1, 2, 7, 8, 4, 5, 6) // two tokens for one, one generated
	al := stats.Align(a, b, 5, 6)
	if al.Substituted || al.Same {
		t.Fatalf("alignment %+v", al)
	}
	want := []int{0, 1, -1, 4, 5}
	if !slices.Equal(al.AtoB, want) {
		t.Fatalf("AtoB %v, want %v", al.AtoB, want)
	}
	if !strings.Contains(DescribeAlignment(al, a, b), "do not align") {
		t.Errorf("describe: %s", DescribeAlignment(al, a, b))
	}
}

func TestCompareDelta(t *testing.T) {
	step := func(pos, id int, p float64, others ...trace.Candidate) trace.Step {
		c := trace.Candidate{ID: id, Text: "x", P: p}
		return trace.Step{Pos: pos, Chosen: c, Top: append([]trace.Candidate{c}, others...)}
	}
	a := &trace.Run{Tokens: append(toks(1, 2, 3), trace.Token{ID: 5, Pos: 3, Generated: true}, trace.Token{ID: 6, Pos: 4, Generated: true}),
		Steps: []trace.Step{step(3, 5, 0.903), step(4, 6, 0.5)}}
	b := &trace.Run{Tokens: append(toks(1, 2, 3), trace.Token{ID: 5, Pos: 3, Generated: true}, trace.Token{ID: 7, Pos: 4, Generated: true}),
		Steps: []trace.Step{step(3, 5, 0.925), step(4, 7, 0.6, trace.Candidate{ID: 6, P: 0.3})}}
	c := Compare(a, b, 3, 2, 1)
	if c.FirstA != 4 || c.FirstB != 4 {
		t.Fatalf("first divergence %d / %d, want 4", c.FirstA, c.FirstB)
	}
	if line := DeltaLine(c.Delta); !strings.Contains(line, "90.3 % ⟶ 92.5 %") || !strings.Contains(line, "+2.2") {
		t.Fatalf("Δp line %q", line)
	}
	d := Compare(a, b, 4, 2, 1).Delta
	if !d.Diverged || !d.InB || d.PB != 0.3 {
		t.Fatalf("diverged step %+v", d)
	}
	if c.HasGrids || c.GridNote == "" {
		t.Fatalf("no attention captured, but grids %v (%q)", c.HasGrids, c.GridNote)
	}
}

func TestSentencesOfAnAblation(t *testing.T) {
	a := &trace.Run{Prompt: "My favourite colour is", Settings: trace.Settings{Kernels: "avx2"}}
	b := &trace.Run{Prompt: a.Prompt, Settings: trace.Settings{Kernels: "avx2", Ablate: []trace.Head{{Layer: 18, Head: 1}}}}
	if got, want := DescribePair(a, b, 1), "A and B differ in heads switched off (none in A, 19:2 in B)."; got != want {
		t.Errorf("DescribePair = %q, want %q", got, want)
	}
	if got := DescribePair(a, a, 0); got != "A and B are the same run." {
		t.Errorf("same run: %q", got)
	}
	if got, want := SwitchOffKind(b.Settings.Ablate, 0), "B is A rerun with 1 head switched off (outputs zeroed before o_proj at every position): 18:1 (layer:head, counted from 0)."; got != want {
		t.Errorf("SwitchOffKind = %q, want %q", got, want)
	}
	if got := HeadsHelp(3, 1); got != "3 heads selected (framed in orange on the grid)." {
		t.Errorf("HeadsHelp = %q", got)
	}
	toks := []trace.Token{{Text: "My"}, {Text: " favourite"}}
	if got, want := TopHeadsNote(1, toks, 1, 4), "Preset: the head that looks most at «·favourite» (position 1) from position 4."; got != want {
		t.Errorf("TopHeadsNote = %q, want %q", got, want)
	}
	if got := TopHeadsNote(10, toks, 9, 4); !strings.Contains(got, "the 10 heads that look most at the source") {
		t.Errorf("TopHeadsNote(10) = %q", got)
	}
}

// A new pair of runs scrolls Compare back to its headline; another step
// of the same pair keeps the place the user scrolled to.
func TestCompareScrollsToHeadline(t *testing.T) {
	test.NewTempApp(t)
	step := func(pos, id int, p float64) trace.Step {
		c := trace.Candidate{ID: id, Text: "x", P: p}
		return trace.Step{Pos: pos, Chosen: c, Top: []trace.Candidate{c}}
	}
	run := func(ids ...int) *trace.Run {
		r := &trace.Run{Tokens: toks(1, 2, 3)}
		for i, id := range ids {
			r.Tokens = append(r.Tokens, trace.Token{ID: id, Pos: 3 + i, Generated: true})
			r.Steps = append(r.Steps, step(3+i, id, 0.5))
		}
		return r
	}
	a, b, c := run(5, 6), run(5, 7), run(8, 9)
	p := NewComparePanel()
	w := test.NewWindow(p)
	defer w.Close()
	w.Resize(fyne.NewSize(800, 300)) // shorter than the panel: it scrolls
	p.Display(Compare(a, b, 3, 2, 1), "B is a variant")
	p.scroll.Refresh()                                      // lays the new content out, as the window's driver does
	test.Scroll(w.Canvas(), fyne.NewPos(400, 200), 0, -200) // the wheel, down
	down := p.ScrolledTo()
	if down <= 0 {
		t.Fatal("the panel does not scroll at 800 × 300")
	}
	p.Display(Compare(a, b, 4, 3, 1), "B is a variant")
	if p.ScrolledTo() != down {
		t.Errorf("another step of the same pair moved the scroll from %v to %v", down, p.ScrolledTo())
	}
	p.Display(Compare(a, c, 3, 2, 1), "B is another variant")
	if p.ScrolledTo() != 0 {
		t.Errorf("a new pair left the panel scrolled to %v, not at its headline", p.ScrolledTo())
	}
}
