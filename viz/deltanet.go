package viz

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"loupe/i18n"
	"loupe/trace"
	"loupe/trace/stats"
)

// maxDeltaCols bounds the token columns of DeltaNet maps: a longer run is
// drawn in bins of consecutive tokens (their mean).
const maxDeltaCols = 600

// DeltaNetFigure draws what one Gated DeltaNet layer did over a run, in
// place of an attention map it does not have: three heads × tokens maps,
// the decay α and write strength β of every token (0…1) and the Frobenius
// norm of each head's state where it was recorded. why is the sentence
// under the title that says why there is no attention map.
func DeltaNetFigure(d trace.DeltaNet, why string, th Theme) Figure {
	th = th.complete()
	title := th.t("deltanet.title", i18n.Args{"Layer": d.Layer})
	if len(d.Alpha) == 0 || len(d.Alpha[0]) == 0 {
		return noData(th, title, th.t("deltanet.none", nil))
	}
	alpha, aStarts := binHeads(d.Alpha)
	beta, _ := binHeads(d.Beta)
	norm, _ := binHeads(stateOnTokens(d))
	top := 0.0
	for _, r := range norm {
		for _, v := range r {
			top = max(top, finiteOr0(v))
		}
	}
	note := th.t("deltanet.rows", i18n.Args{"N": th.num().Thousands(int64(len(d.Alpha)))})
	if len(aStarts) < len(d.Alpha) {
		note = th.t("deltanet.bins", i18n.Args{"N": th.num().Thousands(int64(len(d.Alpha))), "Bin": th.num().Thousands(int64((len(d.Alpha) + len(aStarts) - 1) / len(aStarts)))})
	}
	plots := []*plot.Plot{
		deltaHeat(alpha, 0, 1, th.t("deltanet.alpha", nil), th),
		deltaHeat(beta, 0, 1, th.t("deltanet.beta", nil), th),
		deltaHeat(norm, 0, max(top, 1e-9), th.t("deltanet.norm", i18n.Args{"Top": th.num().Number(strconv.FormatFloat(top, 'g', 3, 64))}), th),
	}
	return &frame{th: th, title: title, notes: []string{why, note}, body: func(c draw.Canvas) {
		gap := th.FontSize / 2
		h := (c.Size().Y - 2*gap) / 3
		for i, p := range plots { // α on top, then β, then ‖S‖
			part := c
			part.Max.Y = c.Max.Y - vg.Length(i)*(h+gap)
			part.Min.Y = part.Max.Y - h
			p.Draw(part)
		}
	}}
}

// binHeads pools rows [item][head] into heads × columns (at most
// maxDeltaCols), returning the first item of each column.
func binHeads(rows [][]float32) ([][]float64, []int) {
	if len(rows) == 0 {
		return nil, nil
	}
	pooled, starts := stats.PoolRows(rows, maxDeltaCols) // [columns][head]
	heads := len(rows[0])
	out := make([][]float64, heads)
	for j := range heads {
		out[j] = make([]float64, len(pooled))
		for c, r := range pooled {
			out[j][c] = r[j]
		}
	}
	return out, starts
}

// deltaHeat is one heads × columns heatmap on lo…hi, head 0 at the bottom.
func deltaHeat(rows [][]float64, lo, hi float64, label string, th Theme) *plot.Plot {
	p := th.newPlot()
	if len(rows) == 0 || len(rows[0]) == 0 {
		return p
	}
	p.Add(newHeat(rows, th.Palette, lo, hi, th))
	p.X.Label.Text = label
	p.Y.Label.Text = th.t("head.axis", nil)
	p.X.Padding, p.Y.Padding = 0, 0
	p.X.Min, p.X.Max = -0.5, float64(len(rows[0]))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(rows))-0.5
	p.X.Tick.Marker = integerTicks{}
	p.Y.Tick.Marker = indexTicks{n: len(rows)}
	return p
}

// stateOnTokens puts the recorded state norms on the token axis: each
// token has the last norm recorded at or before it (NaN before the first).
func stateOnTokens(d trace.DeltaNet) [][]float32 {
	out := make([][]float32, len(d.Alpha))
	i := -1
	for t := range out {
		for i+1 < len(d.StatePos) && d.StatePos[i+1] <= t {
			i++
		}
		out[t] = make([]float32, len(d.Alpha[0]))
		for j := range out[t] {
			out[t][j] = float32(math.NaN())
			if i >= 0 && j < len(d.StateNorm[i]) {
				out[t][j] = d.StateNorm[i][j]
			}
		}
	}
	return out
}
