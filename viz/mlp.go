package viz

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"loupe/i18n"
	"loupe/trace/stats"
)

// MLPValues draws the n values of largest magnitude of an MLP activation
// silu(gate)·up (length intermediate_size, 8,960 for Qwen2.5-1.5B), sorted:
// positive ones rise above zero on the left, negative ones hang below on
// the right. The caption counts over all values: "half under 0.08, 298
// above 0.5, 70 above 1, max 3.3". An empty title gets a default.
func MLPValues(values []float32, n int, title string, th Theme) Figure {
	th = th.complete()
	vs := stats.LargestAbs(values, n)
	if title == "" {
		title = th.t("mlp.title", i18n.Args{"N": th.num().Thousands(int64(len(vs))), "Of": th.num().Thousands(int64(len(values)))})
	}
	if len(vs) == 0 {
		return noData(th, title, th.t("mlp.none", nil))
	}
	s := stats.SummarizeMLP(values)
	nl := th.num()
	note := th.t("mlp.summary", i18n.Args{"N": nl.Thousands(int64(s.N)), "Median": nl.Sig2(s.MedianAbs), "Half": nl.Number("0.5"),
		"Above05": nl.Thousands(int64(s.Above05)), "Above1": nl.Thousands(int64(s.Above1)), "Max": nl.Sig2(s.MaxAbs)})
	p := th.newPlot()
	p.Add(hline{y: 0, style: draw.LineStyle{Color: th.Grid, Width: vg.Points(1)}})
	p.Add(&columns{values: vs, pos: th.Accent, neg: th.Negative})
	p.X.Label.Text = th.t("mlp.rank", nil)
	p.Y.Label.Text = "silu(gate)·up"
	p.X.Tick.Marker = integerTicks{}
	return &frame{th: th, title: title, notes: []string{note}, body: p.Draw}
}

// integerTicks are the default ticks without fractional ones, for ranks
// and dimensions.
type integerTicks struct{}

func (integerTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if t.Value == math.Trunc(t.Value) {
			if t.Label != "" {
				t.Label = strconv.FormatFloat(t.Value, 'f', 0, 64)
			}
			out = append(out, t)
		}
	}
	return out
}

// Embedding draws one row of the embedding table (hidden_size numbers,
// 1,536 for Qwen2.5-1.5B) as a bar per dimension, with the first numbers
// written out as in the article: "0.017, -0.004, -0.008, …".
func Embedding(values []float32, token string, th Theme) Figure {
	th = th.complete()
	title := th.t("embedding.title", i18n.Args{"Token": th.quote(token), "N": th.num().Thousands(int64(len(values)))})
	if len(values) == 0 {
		return noData(th, title, th.t("embedding.none", nil))
	}
	vs := make([]float64, len(values))
	for i, v := range values {
		vs[i] = float64(v)
	}
	p := th.newPlot()
	p.Add(hline{y: 0, style: draw.LineStyle{Color: th.Grid, Width: vg.Points(1)}})
	p.Add(&columns{values: vs, pos: th.Accent, neg: th.Negative})
	p.X.Label.Text, p.Y.Label.Text = th.t("dimension", nil), th.t("value", nil)
	p.X.Tick.Marker = integerTicks{}
	return &frame{th: th, title: title, notes: []string{th.num().FirstNumbers(values, 6)}, body: p.Draw}
}
