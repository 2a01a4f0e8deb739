package views

import (
	"slices"
	"strings"
	"testing"

	"loupe/trace"
)

func hd(l, h int) trace.Head { return trace.Head{Layer: l, Head: h} }

func TestTopHeadsAreTheLargestCells(t *testing.T) {
	g := [][]float64{{0.1, 0.9, 0.3}, {0.5, 0.05, 0.7}}
	got := TopHeads(g, 3)
	want := []trace.Head{hd(0, 1), hd(1, 2), hd(1, 0)}
	if !slices.Equal(got, want) {
		t.Fatalf("TopHeads = %v, want %v", got, want)
	}
	if n := len(TopHeads(g, 99)); n != 6 {
		t.Fatalf("N beyond the grid gave %d heads", n)
	}
}

func TestRandomHeadsSeeded(t *testing.T) {
	a := RandomHeads(28, 12, 10, 7)
	b := RandomHeads(28, 12, 10, 7)
	c := RandomHeads(28, 12, 10, 8)
	if !slices.Equal(a, b) {
		t.Fatalf("seed 7 twice: %v and %v", a, b)
	}
	if slices.Equal(a, c) {
		t.Fatalf("seeds 7 and 8 drew the same heads %v", a)
	}
	seen := map[trace.Head]bool{}
	for _, h := range a {
		if seen[h] || h.Layer < 0 || h.Layer >= 28 || h.Head < 0 || h.Head >= 12 {
			t.Fatalf("head %v repeated or out of range in %v", h, a)
		}
		seen[h] = true
	}
	if all := RandomHeads(2, 3, 10, 1); len(all) != 6 {
		t.Fatalf("asking for more heads than the model has gave %d", len(all))
	}
}

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
	al := Align(a, b, 5, 5)
	if al.Same || !al.Substituted || al.ChangedA != [2]int{2, 3} {
		t.Fatalf("alignment %+v", al)
	}
	for i := range a {
		if al.AtoB[i] != i || al.BtoA[i] != i {
			t.Fatalf("position %d maps to %d / %d", i, al.AtoB[i], al.BtoA[i])
		}
	}
	if !strings.Contains(al.Describe(a, b), "position 2:") {
		t.Errorf("describe: %s", al.Describe(a, b))
	}
	if FirstDivergence(a, b) != 2 {
		t.Errorf("first divergence %d", FirstDivergence(a, b))
	}
}

func TestAlignInsertion(t *testing.T) {
	a := toks(1, 2, 3, 4, 5)
	b := toks(1, 2, 7, 8, 4, 5, 6) // two tokens for one, one generated
	al := Align(a, b, 5, 6)
	if al.Substituted || al.Same {
		t.Fatalf("alignment %+v", al)
	}
	want := []int{0, 1, -1, 4, 5}
	if !slices.Equal(al.AtoB, want) {
		t.Fatalf("AtoB %v, want %v", al.AtoB, want)
	}
	if !strings.Contains(al.Describe(a, b), "do not align") {
		t.Errorf("describe: %s", al.Describe(a, b))
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
	if line := c.Delta.Line(); !strings.Contains(line, "90.3 % ⟶ 92.5 %") || !strings.Contains(line, "+2.2") {
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
