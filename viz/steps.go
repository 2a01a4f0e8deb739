package viz

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"

	"loupe/format"
	"loupe/trace"
	"loupe/trace/stats"
)

// StepProbs draws the loop of generation: the probability each chosen
// token had when it was drawn ("purple" 92.5 %, "cat" 90.5 %, "." 68.8 %,
// "Is" 12.8 %). When every step fits as a labelled row it draws rows;
// otherwise one column per step, the least confident named in a note.
func StepProbs(steps []trace.Step, th Theme) Figure {
	th = th.complete()
	title := fmt.Sprintf("probability of each chosen token (%s)", format.Plural(len(steps), "step"))
	if len(steps) == 0 {
		return noData(th, "chosen tokens", "no generated tokens")
	}
	low := leastConfident(steps)
	note := fmt.Sprintf("least sure: %s at step %d, %s", quote(steps[low].Chosen.Text), low, format.Percent(steps[low].Chosen.P))
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
		rows[i] = row{name: cut(visible(s.Chosen.Text), 16), value: s.Chosen.P, color: th.Accent, text: format.Percent(s.Chosen.P)}
		if i == low {
			rows[i].color = th.Highlight
		}
	}
	return rowPlot(rows, "probability when chosen", percentTicks{}, th)
}

func stepColumns(steps []trace.Step, th Theme) *plot.Plot {
	vs := make([]float64, len(steps))
	for i, s := range steps {
		vs[i] = s.Chosen.P
	}
	p := th.newPlot()
	p.Add(&columns{values: vs, pos: th.Accent, neg: th.Negative})
	p.X.Label.Text, p.Y.Label.Text = "step", "probability"
	p.X.Tick.Marker, p.Y.Tick.Marker = integerTicks{}, percentTicks{}
	p.Y.Min, p.Y.Max = 0, 1
	return p
}

// ScoreShares illustrates the softmax: each score and the percentage it
// becomes ("1.2 → 7 %, 3.5 → 72 %, 0.4 → 3 %, 2.1 → 18 %").
func ScoreShares(labels []string, scores []float64, th Theme) Figure {
	th = th.complete()
	if len(scores) == 0 {
		return noData(th, "softmax", "no scores")
	}
	p := stats.Softmax(scores)
	best := 0
	rows := make([]row, len(scores))
	for i, s := range scores {
		rows[i] = row{name: tokenAtOr(labels, i, fmt.Sprintf("score %d", i+1)), value: p[i], color: th.Accent,
			text: fmt.Sprintf("%s → %s", format.Trim(s, 2), format.Percent(p[i]))}
		if p[i] > p[best] {
			best = i
		}
	}
	rows[best].color = th.Highlight
	return &frame{th: th, title: "softmax: scores become shares of 100 %", body: func(c draw.Canvas) {
		rowPlot(rows[:min(len(rows), rowsThatFit(c, th))], "share", percentTicks{}, th).Draw(c)
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
		return noData(th, "output head", "no model")
	}
	rows := make([]row, len(models))
	for i, m := range models {
		head, total, share := stats.OutputReadShare(m)
		rows[i] = row{name: cut(m.Name, 20), value: share, color: th.Highlight,
			text: fmt.Sprintf("%s of %s  %s", format.Count(head), format.Count(total), format.Percent(share))}
	}
	return &frame{th: th, title: "output head: share of what writing one token reads", body: func(c draw.Canvas) {
		rowPlot(rows[:min(len(rows), rowsThatFit(c, th))], "share of the parameters read", percentTicks{}, th).Draw(c)
	}}
}
