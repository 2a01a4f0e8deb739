package viz

import (
	"cmp"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"

	"loupe/i18n"
	"loupe/trace"
)

// TopCandidates draws the sampler's top candidates as horizontal bars,
// most likely on top, with their probabilities; the chosen token is in the
// highlight colour. A chosen token outside the list is named in a note.
func TopCandidates(c []trace.Candidate, chosenID int, th Theme) Figure {
	th = th.complete()
	title := th.t("candidates.title", i18n.Args{"N": len(c)})
	if len(c) == 0 {
		return noData(th, th.t("candidates.untitled", nil), th.t("candidates.none", nil))
	}
	c = slices.Clone(c)
	slices.SortStableFunc(c, func(a, b trace.Candidate) int { return cmp.Compare(finiteOr0(b.P), finiteOr0(a.P)) })
	return &frame{th: th, title: title, notes: []string{candidatesNote(c, chosenID, th)}, body: func(dc draw.Canvas) {
		drawRows(dc, th, func(fit int) *plot.Plot { return candidatesPlot(c, chosenID, fit, th) })
	}}
}

// candidatesPlot shows the first fit candidates.
func candidatesPlot(c []trace.Candidate, chosenID, fit int, th Theme) *plot.Plot {
	var rows []row
	for _, k := range c[:min(fit, len(c))] {
		r := row{name: cut(visible(k.Text), 16), value: k.P, color: th.Accent, text: th.pct(k.P)}
		if k.ID == chosenID {
			r.color = th.Highlight
		}
		rows = append(rows, r)
	}
	return rowPlot(rows, th.t("probability", nil), th.percentAxis(), th)
}

// candidatesNote names the chosen token and what the rest of the
// vocabulary shares.
func candidatesNote(c []trace.Candidate, chosenID int, th Theme) string {
	var sum float64
	chosen := ""
	for _, k := range c {
		sum += finiteOr0(k.P)
		if k.ID == chosenID {
			chosen = th.t("candidates.chosen", i18n.Args{"Token": th.quote(k.Text), "ID": k.ID, "Share": th.pct(k.P)})
		}
	}
	if chosen == "" {
		chosen = th.t("candidates.chosen.out", i18n.Args{"ID": chosenID})
	}
	rest := ""
	if sum <= 1+1e-6 {
		rest = th.t("candidates.others", i18n.Args{"Share": th.pct(max(0, 1-sum))})
	}
	return oneLine(chosen, rest)
}
