package app

import (
	"fmt"
	"slices"
	"strings"

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
	c.kind = describePair(c.runs[a], c.runs[b], u.headBase())
	u.listRuns()
	u.refreshCompare()
}

// describePair says what differs between the settings of two runs.
func describePair(a, b *trace.Run, base int) string {
	var d []string
	if a == b {
		return "A and B are the same run."
	}
	if a.Prompt != b.Prompt {
		d = append(d, "the prompt")
	}
	sa, sb := a.Settings, b.Settings
	mode := func(s trace.Settings) string {
		if s.Temperature == 0 {
			return "greedy"
		}
		return fmt.Sprintf("sampled at T %.2g (top-k %d, top-p %.2g, min-p %.2g) with seed %d", s.Temperature, s.TopK, s.TopP, s.MinP, s.Seed)
	}
	if mode(sa) != mode(sb) {
		d = append(d, fmt.Sprintf("decoding (%s in A, %s in B)", mode(sa), mode(sb)))
	}
	if sa.Kernels != sb.Kernels {
		d = append(d, fmt.Sprintf("kernels (%s in A, %s in B)", sa.Kernels, sb.Kernels))
	}
	if sa.Threads != sb.Threads {
		d = append(d, fmt.Sprintf("threads (%d in A, %d in B)", sa.Threads, sb.Threads))
	}
	if !slices.Equal(sa.Ablate, sb.Ablate) {
		d = append(d, fmt.Sprintf("heads switched off (%s in A, %s in B)", headList(sa.Ablate, base), headList(sb.Ablate, base)))
	}
	if a.Model.Path != b.Model.Path {
		d = append(d, "the model")
	}
	if len(d) == 0 {
		return "A and B have the same model, prompt and settings."
	}
	return "A and B differ in " + strings.Join(d, ", ") + "."
}

func headList(hs []trace.Head, base int) string {
	if len(hs) == 0 {
		return "none"
	}
	return trace.FormatHeads(hs, base)
}
