package viz

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"

	"loupe/i18n"
)

// BatchPoint is one batch size of the "several conversations at once"
// experiment: B sequences written together.
type BatchPoint struct {
	Label           string  // B, as the axis writes it
	DecodeTokS      float64 // tokens written per second, all conversations
	PerSequenceTokS float64 // tokens per second each conversation gets
	MemoryTokS      float64 // what memory allows: bandwidth / bytes per written token (0: unknown)
	ComputeTokS     float64 // what computation allows: peak / operations per token (0: unknown)
}

// BatchSweep draws the batch sizes in two columns: on the left the total
// writing speed of each B beside the roofline's two ceilings, memory's
// (which grows with B: one weight read serves B tokens) and computation's
// (which does not); on the right the speed each conversation gets.
func BatchSweep(title string, points []BatchPoint, notes []string, th Theme) Figure {
	th = th.complete()
	if len(points) == 0 {
		return noData(th, title, th.t("batch.none", nil))
	}
	return &frame{th: th, title: title, notes: notes[:min(3, len(notes))], body: func(c draw.Canvas) {
		cs := splitX(c, th.FontSize, 1.4, 1)
		ps := []*plot.Plot{batchTotal(points, th), batchEach(points, th)}
		alignRows(ps, cs)
		for i, p := range ps {
			p.Draw(cs[i])
		}
	}}
}

// batchTotal is three bars per B: the total writing speed measured, then
// memory's and computation's ceilings.
func batchTotal(points []BatchPoint, th Theme) *plot.Plot {
	rows := make([]row, 0, 3*len(points))
	for _, p := range points {
		rows = append(rows, row{name: p.Label, value: p.DecodeTokS, color: th.Decode, text: th.num().Sig2(p.DecodeTokS)})
		rows = append(rows, ceiling("batch.memory", p.MemoryTokS, th), ceiling("batch.compute", p.ComputeTokS, th))
	}
	return rowPlot(rows, th.t("batch.total", nil), nil, th)
}

// ceiling is a grey bar of what one resource allows (the sentence of key
// what), empty when unknown.
func ceiling(what string, tokS float64, th Theme) row {
	r := row{value: tokS, color: th.Grid}
	if tokS > 0 {
		r.text = th.t(what, i18n.Args{"Rate": th.num().Sig2(tokS)})
	}
	return r
}

// batchEach is one bar per B: the speed each conversation gets, beside
// two empty rows so that its bars face their B on the left.
func batchEach(points []BatchPoint, th Theme) *plot.Plot {
	rows := make([]row, 0, 3*len(points))
	for _, p := range points {
		rows = append(rows, row{name: p.Label, value: p.PerSequenceTokS, color: th.Prefill, text: th.num().Sig2(p.PerSequenceTokS)},
			row{}, row{})
	}
	return rowPlot(rows, th.t("batch.each", nil), nil, th)
}
