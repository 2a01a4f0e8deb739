package viz

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"loupe/i18n"
	"loupe/trace"
)

// StageLabel names a sampler stage with its setting on a second line, in
// English: "temperature\nT = 0.7", "top-k\nk = 0, off".
func StageLabel(st trace.SamplerStage, s trace.Settings) string { return Theme{}.StageLabel(st, s) }

// StageLabel is StageLabel in th's language: the stage's name is the
// sampler's own ("top-k", "min-p"), its setting a formula with numbers
// in th's notation ("T = 0,7"), "off" a word.
func (th Theme) StageLabel(st trace.SamplerStage, s trace.Settings) string {
	g := func(x float64) string { return th.num().Number(strconv.FormatFloat(x, 'g', -1, 64)) }
	set := ""
	switch st.Name {
	case "penalties":
		set = th.t("sampler.penalties", i18n.Args{"Rep": g(or(s.RepeatPenalty, 1)), "Pres": g(s.PresencePenalty)})
	case "temperature":
		set = "T = " + g(s.Temperature)
	case "top-k":
		set = "k = " + strconv.Itoa(s.TopK)
	case "top-p":
		set = "p = " + g(or(s.TopP, 1))
	case "min-p":
		set = "m = " + g(s.MinP)
	}
	if !st.On {
		set += th.t("sampler.off", nil)
	}
	return th.t("stage."+st.Name, nil) + "\n" + set
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
	title := th.t("sampler.title", i18n.Args{"Token": th.quote(drawn)})
	if st.Greedy {
		title = th.t("sampler.greedy", i18n.Args{"Token": th.quote(drawn)})
	}
	n, cols := len(st.Candidates), len(st.Stages)
	if n == 0 || cols == 0 {
		return noData(th, th.t("sampler.untitled", nil), th.t("sampler.none", nil))
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
			rows[i][si], texts[i][si] = p, th.pct(p)
			if p == 0 {
				rows[i][si], texts[i][si] = math.NaN(), th.t("sampler.removed", nil)
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
		stageNames[i] = th.StageLabel(stage, s) + "\n" + th.t("sampler.left", i18n.Args{"N": th.num().Thousands(int64(stage.Kept))})
	}
	hp.X.Tick.Marker = plot.ConstantTicks(columnTicks(stageNames))
	hp.X.Padding, hp.Y.Padding = 0, 0
	hp.X.Min, hp.X.Max = -0.5, float64(cols)-0.5
	hp.Y.Min, hp.Y.Max = -0.5, float64(n)-0.5
	notes := []string{th.t("sampler.cells", nil)}
	if !st.Greedy {
		last := st.Stages[len(st.Stages)-1]
		notes = append(notes, th.t("sampler.draw", i18n.Args{"N": th.num().Thousands(int64(last.Kept)), "U": th.num().Fixed(st.U, 4), "Interval": th.t("sampler.interval", nil)}))
	} else {
		notes = append(notes, th.t("sampler.greedy.note", nil))
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
