package viz

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"

	"loupe/i18n"
	"loupe/trace"
	"loupe/trace/stats"
)

// StepProbs draws the loop of generation: the probability each chosen
// token had when it was drawn ("purple" 92.5 %, "cat" 90.5 %, "." 68.8 %,
// "Is" 12.8 %). When every step fits as a labelled row it draws rows;
// otherwise one column per step, the least confident named in a note.
func StepProbs(steps []trace.Step, th Theme) Figure {
	th = th.complete()
	title := th.t("steps.title", i18n.Args{"Steps": th.n("steps.count", len(steps), i18n.Args{"N": th.num().Thousands(int64(len(steps)))})})
	if len(steps) == 0 {
		return noData(th, th.t("steps.untitled", nil), th.t("steps.none", nil))
	}
	low := leastConfident(steps)
	note := th.t("steps.least", i18n.Args{"Token": th.quote(steps[low].Chosen.Text), "Step": low, "Share": th.pct(steps[low].Chosen.P)})
	return &frame{th: th, title: title, notes: []string{note}, body: func(c draw.Canvas) {
		if fit := rowsThatFit(c, th); len(steps) <= fit {
			stepRows(steps, low, th).Draw(c)
			return
		}
		stepColumns(steps, th).Draw(c)
	}}
}

// leastConfident is the step whose chosen token had the lowest probability.
func leastConfident(steps []trace.Step) int {
	low := 0
	for i, s := range steps {
		if finiteOr0(s.Chosen.P) < finiteOr0(steps[low].Chosen.P) {
			low = i
		}
	}
	return low
}

func stepRows(steps []trace.Step, low int, th Theme) *plot.Plot {
	rows := make([]row, len(steps))
	for i, s := range steps {
		rows[i] = row{name: cut(visible(s.Chosen.Text), 16), value: s.Chosen.P, color: th.Accent, text: th.pct(s.Chosen.P)}
		if i == low {
			rows[i].color = th.Highlight
		}
	}
	return rowPlot(rows, th.t("steps.axis", nil), th.percentAxis(), th)
}

func stepColumns(steps []trace.Step, th Theme) *plot.Plot {
	vs := make([]float64, len(steps))
	for i, s := range steps {
		vs[i] = s.Chosen.P
	}
	p := th.newPlot()
	p.Add(&columns{values: vs, pos: th.Accent, neg: th.Negative})
	p.X.Label.Text, p.Y.Label.Text = th.t("step", nil), th.t("probability", nil)
	p.X.Tick.Marker, p.Y.Tick.Marker = integerTicks{}, th.percentAxis()
	p.Y.Min, p.Y.Max = 0, 1
	return p
}

// ScoreShares illustrates the softmax: each score and the percentage it
// becomes ("1.2 → 7 %, 3.5 → 72 %, 0.4 → 3 %, 2.1 → 18 %").
func ScoreShares(labels []string, scores []float64, th Theme) Figure {
	th = th.complete()
	if len(scores) == 0 {
		return noData(th, "softmax", th.t("softmax.none", nil))
	}
	p := stats.Softmax(scores)
	best := 0
	rows := make([]row, len(scores))
	for i, s := range scores {
		rows[i] = row{name: tokenAtOr(labels, i, th.t("softmax.score", i18n.Args{"N": i + 1})), value: p[i], color: th.Accent,
			text: th.num().Trim(s, 2) + " → " + th.pct(p[i])}
		if p[i] > p[best] {
			best = i
		}
	}
	rows[best].color = th.Highlight
	return &frame{th: th, title: th.t("softmax.title", nil), body: func(c draw.Canvas) {
		rowPlot(rows[:min(len(rows), rowsThatFit(c, th))], th.t("share", nil), th.percentAxis(), th).Draw(c)
	}}
}

// tokenAtOr is labels[i] made visible, or def.
func tokenAtOr(labels []string, i int, def string) string {
	if i < len(labels) {
		return cut(visible(labels[i]), 16)
	}
	return def
}

// OutputShares compares, across models, the output head's share of what
// writing one token reads (Qwen2.5-1.5B 15 %, Qwen3.5-2B 27 %).
func OutputShares(models []trace.ModelInfo, th Theme) Figure {
	th = th.complete()
	if len(models) == 0 {
		return noData(th, th.t("part.output", nil), th.t("output.none", nil))
	}
	rows := make([]row, len(models))
	for i, m := range models {
		head, total, share := stats.OutputReadShare(m)
		rows[i] = row{name: cut(m.Name, 20), value: share, color: th.Highlight,
			text: th.t("output.row", i18n.Args{"Head": th.num().Count(head), "Total": th.num().Count(total)}) + "  " + th.pct(share)}
	}
	return &frame{th: th, title: th.t("output.title", nil), body: func(c draw.Canvas) {
		rowPlot(rows[:min(len(rows), rowsThatFit(c, th))], th.t("output.axis", nil), th.percentAxis(), th).Draw(c)
	}}
}
