package viz

import (
	"cmp"
	"fmt"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"

	"loupe/format"
	"loupe/trace"
)

// TopCandidates draws the sampler's top candidates as horizontal bars,
// most likely on top, with their probabilities; the chosen token is in the
// highlight colour. A chosen token outside the list is named in a note.
func TopCandidates(c []trace.Candidate, chosenID int, th Theme) Figure {
	th = th.complete()
	title := fmt.Sprintf("top %d candidates", len(c))
	if len(c) == 0 {
		return noData(th, "top candidates", "no candidates")
	}
	c = slices.Clone(c)
	slices.SortStableFunc(c, func(a, b trace.Candidate) int { return cmp.Compare(finiteOr0(b.P), finiteOr0(a.P)) })
	return &frame{th: th, title: title, notes: []string{candidatesNote(c, chosenID)}, body: func(dc draw.Canvas) {
		drawRows(dc, th, func(fit int) *plot.Plot { return candidatesPlot(c, chosenID, fit, th) })
	}}
}

// candidatesPlot shows the first fit candidates.
func candidatesPlot(c []trace.Candidate, chosenID, fit int, th Theme) *plot.Plot {
	var rows []row
	for _, k := range c[:min(fit, len(c))] {
		r := row{name: cut(visible(k.Text), 16), value: k.P, color: th.Accent, text: format.Percent(k.P)}
		if k.ID == chosenID {
			r.color = th.Highlight
		}
		rows = append(rows, r)
	}
	return rowPlot(rows, "probability", percentTicks{}, th)
}

// candidatesNote names the chosen token and what the rest of the
// vocabulary shares.
func candidatesNote(c []trace.Candidate, chosenID int) string {
	var sum float64
	chosen := ""
	for _, k := range c {
		sum += finiteOr0(k.P)
		if k.ID == chosenID {
			chosen = fmt.Sprintf("chosen %s (id %d): %s", quote(k.Text), k.ID, format.Percent(k.P))
		}
	}
	if chosen == "" {
		chosen = fmt.Sprintf("chosen id %d is not in this list", chosenID)
	}
	rest := ""
	if sum <= 1+1e-6 {
		rest = "all others: " + format.Percent(max(0, 1-sum))
	}
	return oneLine(chosen, rest)
}
