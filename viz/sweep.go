package viz

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"

	"loupe/format"
	"loupe/i18n"
)

// SweepPoint is one measurement of an experiment that varies one thing
// (a context length, a kernel level, a thread count, a weight type).
type SweepPoint struct {
	Label         string  // "4k", "avx2", "2", "q8_0"
	PrefillTokS   float64 // reading, tokens/s
	DecodeTokS    float64 // writing, tokens/s
	PredictedTokS float64 // bandwidth / bytes per token (0: unknown)
	BytesPerToken float64 // what one decode step reads
}

// Sweep draws an experiment's points side by side in its two times:
// reading (prefill) tokens/s on the left, writing (decode) tokens/s on
// the right, each written speed over the speed the memory allows (the
// measured bandwidth / the bytes one step reads). notes (the reading of
// the result first) go under the figure; at most three are shown.
func Sweep(title string, points []SweepPoint, notes []string, th Theme) Figure {
	th = th.complete()
	if len(points) == 0 {
		return noData(th, title, th.t("sweep.none", nil))
	}
	return &frame{th: th, title: title, notes: notes[:min(3, len(notes))], body: func(c draw.Canvas) {
		cs := splitX(c, th.FontSize, 1, 1.25)
		ps := []*plot.Plot{sweepReading(points, th), sweepWriting(points, th)}
		alignRows(ps, cs)
		for i, p := range ps {
			p.Draw(cs[i])
		}
	}}
}

// sweepReading is one bar per point: prefill tokens/s.
func sweepReading(points []SweepPoint, th Theme) *plot.Plot {
	rows := make([]row, 0, 2*len(points))
	for _, p := range points {
		rows = append(rows, row{name: p.Label, value: p.PrefillTokS, color: th.Prefill, text: th.num().Sig2(p.PrefillTokS)},
			row{name: "", value: 0})
	}
	return rowPlot(rows, th.t("sweep.reading", nil), speedTicks{num: th.num()}, th)
}

// sweepWriting is two bars per point: decode tokens/s measured, then the
// speed the memory allows, with the bytes one step reads.
func sweepWriting(points []SweepPoint, th Theme) *plot.Plot {
	rows := make([]row, 0, 2*len(points))
	for _, p := range points {
		rows = append(rows, row{name: p.Label, value: p.DecodeTokS, color: th.Decode, text: th.num().Sig2(p.DecodeTokS)})
		pred := row{name: "", value: p.PredictedTokS, color: th.Grid}
		if p.PredictedTokS > 0 {
			pred.text = th.t("sweep.allows", i18n.Args{"Rate": th.num().Sig2(p.PredictedTokS), "Bytes": th.num().Bytes(p.BytesPerToken)})
		}
		rows = append(rows, pred)
	}
	return rowPlot(rows, th.t("sweep.writing", nil), speedTicks{num: th.num()}, th)
}

// speedTicks labels a tokens/s axis at a round step (1, 2 or 5 × 10^k)
// that gives 3 to 6 labels, written as counts ("0 10,000 20,000"). gonum's
// default steps by 2.5 × 10^k with two decimals: a threads sweep's axis
// read "0.00 25000.00".
type speedTicks struct{ num format.Lang }

func (t speedTicks) Ticks(lo, hi float64) []plot.Tick {
	span := hi - lo
	if !(span > 0) || math.IsInf(span, 0) {
		return nil
	}
	step := math.Pow(10, math.Floor(math.Log10(span/3)))
	for _, m := range []float64{1, 2, 5, 10} {
		if span/(m*step) <= 5 {
			step *= m
			break
		}
	}
	var ts []plot.Tick
	first := math.Ceil(lo / step)
	for i := 0.0; ; i++ {
		v := (first + i) * step
		if v > hi+step*1e-9 {
			break
		}
		ts = append(ts, plot.Tick{Value: v, Label: t.num.Number(stepLabel(v, step))})
	}
	return ts
}

// stepLabel writes v with as many decimals as step needs: "25,000",
// "0.2".
func stepLabel(v, step float64) string {
	if step >= 1 {
		return format.Thousands(int64(math.Round(v)))
	}
	return strconv.FormatFloat(v, 'f', int(math.Ceil(-math.Log10(step)-1e-9)), 64)
}
