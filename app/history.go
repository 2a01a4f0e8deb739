package app

import (
	"slices"

	"loupe/trace"
	"loupe/views"
)

// The history of finished runs the Compare tab chooses from, and what
// tells two of them apart.

// remember adds a finished run to the history; a rerun becomes run B of
// the comparison with its run A.
func (u *UI) remember(run *trace.Run) {
	c := &u.cmp
	c.sourceA = -1
	c.runs = append(c.runs, run)
	if len(c.runs) > maxHistory {
		c.runs = slices.Delete(c.runs, 0, len(c.runs)-maxHistory)
	}
	if c.role != nil {
		if ia := slices.Index(c.runs, c.role.base); ia >= 0 {
			c.a, c.b, c.kind, c.sourceA = ia, len(c.runs)-1, c.role.kind, c.role.sourceA
		}
		c.role = nil
	} else if c.a >= len(c.runs) || c.b >= len(c.runs) || c.a < 0 {
		c.a, c.b = -1, -1
	}
	u.listRuns()
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
