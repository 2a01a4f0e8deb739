package views

import (
	"loupe/i18n"
	"loupe/trace"
	"loupe/trace/stats"
)

// Comparison is everything the Compare panel shows for runs A and B at one
// step and one query → source pair, computed from the two runs alone.
type Comparison struct {
	A, B  *trace.Run
	Align stats.Alignment
	// FirstA and FirstB: the first generated position where B's token is not
	// A's (-1: none within the shorter run).
	FirstA, FirstB int
	Delta          stats.Delta
	// The attention grids of A's query on A's source and of the paired
	// positions in B; Diff = B − A. HasGrids is false when either run did
	// not capture the query or a position has no pair (GridNote says why).
	QueryA, SourceA, QueryB, SourceB int
	GridA, GridB, Diff               [][]float64
	HasGrids                         bool
	GridNote                         string
}

// Compare lines up B with A and compares them at the step that generated
// posA and for the grid of queryA on sourceA (positions of A).
func Compare(a, b *trace.Run, posA, queryA, sourceA int) Comparison {
	c := Comparison{A: a, B: b, FirstA: -1, FirstB: -1, QueryA: queryA, SourceA: sourceA}
	c.Align = stats.Align(a.Tokens, b.Tokens, stats.PromptLen(a), stats.PromptLen(b))
	c.FirstA, c.FirstB = stats.FirstWritten(a, b, c.Align)
	c.Delta = stats.DeltaAt(a, b, posA, pair(c.Align.AtoB, posA))
	c.QueryB, c.SourceB = pair(c.Align.AtoB, queryA), pair(c.Align.AtoB, sourceA)
	c.grids()
	return c
}

func pair(m []int, i int) int {
	if i < 0 || i >= len(m) {
		return -1
	}
	return m[i]
}

func (c *Comparison) grids() {
	attA, okA := stats.AttentionAt(c.A.Attention, c.QueryA)
	switch {
	case c.QueryA < 0 || c.SourceA > c.QueryA:
		c.GridNote = tr("views.cmp.choose", nil)
		return
	case !okA:
		c.GridNote = tr("views.cmp.no_att_a", i18n.Args{"Pos": c.QueryA})
		return
	}
	if c.SourceA < 0 {
		// No source chosen: the strongest one, as the attention grid
		// shows it. Asked to choose one, the user saw both chosen in the
		// strip (the grid's strongest is outlined there) and no grids.
		c.SourceA = stats.StrongestSource(attA)
		c.SourceB = pair(c.Align.AtoB, c.SourceA)
	}
	switch {
	case c.QueryB < 0 || c.SourceB < 0:
		c.GridNote = tr("views.cmp.no_counterpart", i18n.Args{"Q": c.QueryA, "S": c.SourceA})
		return
	}
	attB, okB := stats.AttentionAt(c.B.Attention, c.QueryB)
	if !okB {
		c.GridNote = tr("views.cmp.no_att_b", i18n.Args{"Pos": c.QueryB})
		return
	}
	c.GridA, c.GridB = stats.SourceGrid(attA, c.SourceA), stats.SourceGrid(attB, c.SourceB)
	if len(c.GridA) == 0 || len(c.GridA) != len(c.GridB) || len(c.GridA[0]) != len(c.GridB[0]) {
		c.GridNote = tr("views.cmp.shapes", nil)
		c.GridA, c.GridB = nil, nil
		return
	}
	c.Diff = stats.GridDiff(c.GridA, c.GridB)
	c.HasGrids = true
}

// Steps lists the generated positions of A, in order (the steps one can
// compare).
func (c Comparison) Steps() []int {
	out := make([]int, 0, len(c.A.Steps))
	for _, s := range c.A.Steps {
		out = append(out, s.Pos)
	}
	return out
}
