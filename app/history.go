package app

import (
	"loupe/engine/experiment"
	"loupe/session"
	"loupe/trace"
	"loupe/views"
)

// The history of finished runs the Compare tab chooses from (kept by
// session.State) and the tab's choosers.

// remember adds a finished run to the history and lists the runs.
func (u *UI) remember(run *trace.Run) {
	u.st.Remember(run)
	u.listRuns()
}

// listRuns refreshes the run choosers of the Compare tab.
func (u *UI) listRuns() {
	labels := make([]string, len(u.st.Runs))
	for i, r := range u.st.Runs {
		labels[i] = views.RunLabel(i, r, u.headBase())
	}
	u.compare.SetRuns(labels, u.st.A, u.st.B)
}

// pickRuns compares two runs of the history chosen in the Compare tab.
func (u *UI) pickRuns(a, b int) {
	s := u.st
	if a < 0 || b < 0 || a >= len(s.Runs) || b >= len(s.Runs) {
		return
	}
	s.Pick(a, b, views.DescribePair(s.Runs[a], s.Runs[b], u.headBase()))
	u.listRuns()
	if pos, ok := session.BranchPos(s.Runs[a], s.Runs[b]); ok {
		u.compareAt(pos)
		return
	}
	u.refreshCompare()
}

// compareAt shows the comparison at position pos of A: the stream selects
// it when its run lines up with A, else the tab steps alone.
func (u *UI) compareAt(pos int) {
	u.st.Step = pos
	if cur := u.st.LastRun; cur != nil && (cur == u.st.Runs[u.st.A] || cur.Prompt == u.st.Runs[u.st.A].Prompt) && pos < len(u.st.Tokens) {
		u.st.Follow = false
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
		u.st.Remember(run)
	}
	s := u.st
	if r.What == experiment.Quant && len(runs) > 1 {
		a, b := len(s.Runs)-len(runs), len(s.Runs)-1
		s.Pick(a, b, views.DescribePair(s.Runs[a], s.Runs[b], u.headBase()))
	}
	u.listRuns()
	u.refreshCompare()
}
