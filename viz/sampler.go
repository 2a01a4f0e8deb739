package viz

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"loupe/format"
	"loupe/trace"
)

// StageLabel names a sampler stage with its setting on a second line:
// "temperature\nT = 0.7", "top-k\nk = 0, off".
func StageLabel(st trace.SamplerStage, s trace.Settings) string {
	set := ""
	switch st.Name {
	case "penalties":
		set = fmt.Sprintf("rep %g, pres %g", or(s.RepeatPenalty, 1), s.PresencePenalty)
	case "temperature":
		set = fmt.Sprintf("T = %g", s.Temperature)
	case "top-k":
		set = fmt.Sprintf("k = %d", s.TopK)
	case "top-p":
		set = fmt.Sprintf("p = %g", or(s.TopP, 1))
	case "min-p":
		set = fmt.Sprintf("m = %g", s.MinP)
	}
	if !st.On {
		set += ", off"
	}
	return st.Name + "\n" + set
}

func or(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

// DrawInterval is where each candidate sits on [0, 1) of the final
// distribution, best first: the draw takes the candidate whose interval
// holds u (the candidates outside the list come after them).
func DrawInterval(st trace.SamplerStages) (lo, hi []float64) {
	run := 0.0
	for _, c := range st.Candidates {
		lo, hi = append(lo, run), append(hi, run+c.P)
		run += c.P
	}
	return lo, hi
}

// SamplerStages draws one step of the sampler: a row per candidate (the
// best after the penalties on top), a column per stage in the sampler's
// order, each cell the candidate's probability after that stage; cells of
// removed candidates are grey, the drawn token's row is outlined. Greedy
// has one column: the argmax is taken, nothing is drawn.
func SamplerStages(st trace.SamplerStages, s trace.Settings, th Theme) Figure {
	th = th.complete()
	drawn := "?"
	for _, c := range st.Candidates {
		if c.ID == st.Drawn {
			drawn = c.Text
		}
	}
	title := fmt.Sprintf("sampler stages: %s drawn", quote(drawn))
	if st.Greedy {
		title = fmt.Sprintf("greedy: %s, the most probable, is taken (no draw)", quote(drawn))
	}
	n, cols := len(st.Candidates), len(st.Stages)
	if n == 0 || cols == 0 {
		return noData(th, "sampler stages", "no sampler stages recorded")
	}
	rows := make([][]float64, n)
	texts := make([][]string, n)
	drawnRow := -1
	for r, c := range st.Candidates {
		i := n - 1 - r // heat row 0 is the bottom: the best on top
		rows[i] = make([]float64, cols)
		texts[i] = make([]string, cols)
		for si, stage := range st.Stages {
			p := stage.P[r]
			rows[i][si], texts[i][si] = p, format.Percent(p)
			if p == 0 {
				rows[i][si], texts[i][si] = math.NaN(), "removed"
			}
		}
		if c.ID == st.Drawn {
			drawnRow = i
		}
	}
	hp := th.newPlot()
	hp.Add(newHeat(rows, th.Palette, 0, 1, th))
	hp.Add(&tableTexts{texts: texts, values: rows, th: th})
	if drawnRow >= 0 {
		var cells []trace.Head
		for si := range cols {
			cells = append(cells, trace.Head{Layer: drawnRow, Head: si})
		}
		hp.Add(&outlines{cells: cells, th: th})
	}
	labels := make([]string, n)
	for r, c := range st.Candidates {
		labels[r] = cut(visible(c.Text), 14)
		if c.ID == st.Drawn {
			labels[r] = "» " + labels[r]
		}
	}
	hp.Y.Tick.Marker = labelTicks(labels)
	stageNames := make([]string, cols)
	for i, stage := range st.Stages {
		stageNames[i] = StageLabel(stage, s) + "\n" + format.Thousands(int64(stage.Kept)) + " left"
	}
	hp.X.Tick.Marker = plot.ConstantTicks(columnTicks(stageNames))
	hp.X.Padding, hp.Y.Padding = 0, 0
	hp.X.Min, hp.X.Max = -0.5, float64(cols)-0.5
	hp.Y.Min, hp.Y.Max = -0.5, float64(n)-0.5
	notes := []string{"each cell: the candidate's probability after that stage, renormalised over what is left; grey: removed"}
	if !st.Greedy {
		last := st.Stages[len(st.Stages)-1]
		notes = append(notes, fmt.Sprintf("%s tokens left after min-p; the seeded draw u = %.4f picks the token whose share of [0, 1) holds it", format.Thousands(int64(last.Kept)), st.U))
	} else {
		notes = append(notes, "greedy: temperature, top-k, top-p and min-p are not applied")
	}
	return &frame{th: th, title: title, notes: notes, body: func(c draw.Canvas) { hp.Draw(c) }}
}

// columnTicks puts one label under each column.
func columnTicks(names []string) []plot.Tick {
	ts := make([]plot.Tick, len(names))
	for i, n := range names {
		ts[i] = plot.Tick{Value: float64(i), Label: n}
	}
	return ts
}

// tableTexts writes texts[row][col] centred in each cell, black on light
// cells and white on dark ones (grey "removed" on the grid colour).
type tableTexts struct {
	texts  [][]string
	values [][]float64 // the cells' values in 0…1 (NaN: grey)
	th     Theme
}

func (t *tableTexts) Plot(c draw.Canvas, p *plot.Plot) {
	if !(c.Size().X > 0 && c.Size().Y > 0) || len(t.texts) == 0 {
		return
	}
	trX, trY := p.Transforms(&c)
	st := t.th.body()
	st.Font.Size = min(t.th.FontSize, (trY(1)-trY(0))*0.55)
	if st.Font.Size < 6 {
		return
	}
	st.XAlign, st.YAlign = draw.XCenter, draw.YCenter
	cw := trX(1) - trX(0) - 4
	for r, row := range t.texts {
		for col, s := range row {
			st.Color = t.th.Foreground
			if v := t.values[r][col]; !math.IsNaN(v) {
				st.Color = textOn(t.th, v)
			}
			c.FillText(st, vg.Point{X: trX(float64(col)), Y: trY(float64(r))}, fit(st, s, cw))
		}
	}
}

func (t *tableTexts) DataRange() (xmin, xmax, ymin, ymax float64) {
	return -0.5, float64(len(t.texts[0])) - 0.5, -0.5, float64(len(t.texts)) - 0.5
}
