package app

import (
	"slices"

	"loupe/trace"
	"loupe/views"
)

// The history of finished runs the Compare tab chooses from, and what
// tells two of them apart.

// remember adds a finished run to the history and lists the runs.
func (u *UI) remember(run *trace.Run) {
	u.cmp.add(run)
	u.listRuns()
}

// add adds a finished run to the history, the oldest dropped beyond
// maxHistory; a rerun becomes run B of the comparison with its run A.
func (c *compareState) add(run *trace.Run) {
	c.sourceA = -1
	c.runs = append(c.runs, run)
	if d := len(c.runs) - maxHistory; d > 0 {
		// The pair's indices follow their runs; a run dropped ends the pair.
		c.runs = slices.Delete(c.runs, 0, d)
		c.a, c.b = c.a-d, c.b-d
	}
	if c.role != nil {
		if ia := slices.Index(c.runs, c.role.base); ia >= 0 {
			c.a, c.b, c.kind, c.sourceA = ia, len(c.runs)-1, c.role.kind, c.role.sourceA
		}
		c.role = nil
	} else if c.a >= len(c.runs) || c.b >= len(c.runs) || c.a < 0 || c.b < 0 {
		c.a, c.b = -1, -1
	}
}

// pair is the compared runs A and B; false when none is chosen.
func (c *compareState) pair() (a, b *trace.Run, ok bool) {
	if c.a < 0 || c.b < 0 || c.a >= len(c.runs) || c.b >= len(c.runs) {
		return nil, nil, false
	}
	return c.runs[c.a], c.runs[c.b], true
}

// isB reports whether run was made as run B of a comparison (a rerun with
// heads switched off, or a variant).
func (c *compareState) isB(run *trace.Run) bool {
	return c.b >= 0 && c.b < len(c.runs) && c.runs[c.b] == run && c.a != c.b
}

// listRuns refreshes the run choosers of the Compare tab.
func (u *UI) listRuns() {
	labels := make([]string, len(u.cmp.runs))
	for i, r := range u.cmp.runs {
		labels[i] = views.RunLabel(i, r, u.headBase())
	}
	u.compare.SetRuns(labels, u.cmp.a, u.cmp.b)
}

// pickRuns compares two runs of the history chosen in the Compare tab.
func (u *UI) pickRuns(a, b int) {
	c := &u.cmp
	if a < 0 || b < 0 || a >= len(c.runs) || b >= len(c.runs) {
		return
	}
	c.a, c.b = a, b
	c.kind = views.DescribePair(c.runs[a], c.runs[b], u.headBase())
	u.listRuns()
	u.refreshCompare()
}
