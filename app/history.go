package app

import (
	"slices"

	"loupe/engine/experiment"
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
			c.a, c.b, c.kind, c.sourceA, c.step = ia, len(c.runs)-1, c.role.kind, c.role.sourceA, -1
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
	c.a, c.b, c.step = a, b, -1
	c.kind = views.DescribePair(c.runs[a], c.runs[b], u.headBase())
	u.listRuns()
	if pos, ok := branchPos(c.runs[a], c.runs[b]); ok {
		u.compareAt(pos)
		return
	}
	u.refreshCompare()
}

// branchPos is the position where one of a and b forced a token in place
// of the other's (the same prompt): the step a comparison of a branch
// with its original starts at.
func branchPos(a, b *trace.Run) (int, bool) {
	if a.Prompt != b.Prompt {
		return 0, false
	}
	for _, r := range []*trace.Run{b, a} {
		if br := r.Settings.Branch; br != nil && br.At >= 0 && br.At < len(r.Steps) {
			return r.Steps[br.At].Pos, true
		}
	}
	return 0, false
}

// compareAt shows the comparison at position pos of A: the stream selects
// it when its run lines up with A, else the tab steps alone.
func (u *UI) compareAt(pos int) {
	u.cmp.step = pos
	if cur := u.lastRun; cur != nil && (cur == u.cmp.runs[u.cmp.a] || cur.Prompt == u.cmp.runs[u.cmp.a].Prompt) && pos < len(u.tokens) {
		u.follow = false
		u.stream.Select(pos)
	}
	u.refreshCompare()
}

// keepExperimentRuns adds an experiment's runs to the history, for the
// Compare tab, without showing them in the stream. The quantisation
// experiment's become the compared pair at once: the original (A)
// against the smallest copy (B), at the step where B's text first leaves A's.
func (u *UI) keepExperimentRuns(r experiment.Result) {
	runs := r.Runs()
	for _, run := range runs {
		u.cmp.add(run)
	}
	c := &u.cmp
	if r.What == experiment.Quant && len(runs) > 1 {
		c.a, c.b, c.step = len(c.runs)-len(runs), len(c.runs)-1, -1
		c.kind = views.DescribePair(c.runs[c.a], c.runs[c.b], u.headBase())
	}
	u.listRuns()
	u.refreshCompare()
}
