package viz

import (
	"math"

	"gonum.org/v1/plot/vg/draw"

	"loupe/i18n"
	"loupe/trace/stats"
)

// EmbeddingRowInfo says where a row comes from: row Row of a Rows × len
// table, and whether the same table is the output head (tied).
type EmbeddingRowInfo struct {
	Token     string
	Row, Rows int
	Tied      bool
}

// RowShape is the article's "row 24,503 of 151,936 × 1,536", in English.
func RowShape(row, rows, width int) string { return Theme{}.RowShape(row, rows, width) }

// RowShape is the article's "row 24,503 of 151,936 × 1,536" in th's
// language ("ligne 24 503 sur 151 936 × 1 536").
func (th Theme) RowShape(row, rows, width int) string {
	n := th.num()
	return th.t("embedding.row", i18n.Args{"Row": n.Thousands(int64(row)), "Rows": n.Thousands(int64(rows)), "Width": n.Thousands(int64(width))})
}

// TiedNote says, in English, whether the embedding table is also the
// output head.
func TiedNote(tied bool) string { return Theme{}.TiedNote(tied) }

// TiedNote says in th's language whether the embedding table is also
// the output head.
func (th Theme) TiedNote(tied bool) string {
	if tied {
		return th.t("embedding.tied", nil)
	}
	return th.t("embedding.untied", nil)
}

// EmbeddingRow draws one token's row of the embedding table: the values
// as a strip of colour, every number, left to right in rows of 64 (a
// diverging scale: purple negative, orange positive), and the same values
// as bars below, with the table's shape, the first numbers as the article
// prints them, and the row's statistics.
func EmbeddingRow(values []float32, in EmbeddingRowInfo, th Theme) Figure {
	th = th.complete()
	title := th.quote(in.Token) + th.t("colon", nil) + th.RowShape(in.Row, in.Rows, len(values))
	if len(values) == 0 {
		return noData(th, title, th.t("embedding.none", nil))
	}
	st := stats.StatsOf(values)
	notes := []string{
		th.num().FirstNumbers(values, 8),
		th.t("embedding.stats", i18n.Args{"Norm": th.num().Fixed(float64(st.Norm), 3), "Min": th.num().Fixed(float64(st.Min), 3),
			"Max": th.num().Fixed(float64(st.Max), 3), "Mean": th.num().Fixed(float64(st.MeanAbs), 4)}),
		th.TiedNote(in.Tied),
	}
	bars := Embedding(values, in.Token, th).(*frame)
	strip := stripPlot(values, th)
	return &frame{th: th, title: title, notes: notes, body: func(c draw.Canvas) {
		top, bottom := splitY(c, c.Size().Y*0.45, th.FontSize/2)
		strip.Draw(top)
		bars.body(bottom)
	}}
}

// stripWidth is how many numbers one row of the strip holds.
const stripWidth = 64

// stripPlot is the row reshaped into lines of stripWidth numbers (the
// first line on top), on ±max|x|.
func stripPlot(values []float32, th Theme) drawer {
	n := len(values)
	cols := min(stripWidth, n)
	lines := (n + cols - 1) / cols
	rows := make([][]float64, lines)
	lim := 0.0
	for i := range rows {
		rows[lines-1-i] = make([]float64, cols) // heat row 0 is the bottom
		for j := range cols {
			k := i*cols + j
			v := math.NaN()
			if k < n {
				v = float64(values[k])
				lim = math.Max(lim, math.Abs(finiteOr0(v)))
			}
			rows[lines-1-i][j] = v
		}
	}
	if lim == 0 {
		lim = 1
	}
	p := th.newPlot()
	p.Add(newHeat(rows, th.Diverging, -lim, lim, th))
	p.X.Label.Text = th.t("embedding.line", i18n.Args{"N": cols})
	p.X.Padding, p.Y.Padding = 0, 0
	p.X.Min, p.X.Max = -0.5, float64(cols)-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(lines)-0.5
	p.X.Tick.Marker = integerTicks{}
	labels := make([]string, lines)
	for i := range labels {
		labels[i] = th.num().Thousands(int64(i * cols))
	}
	p.Y.Tick.Marker = sparseLabels(labels, 8)
	p.Y.Label.Text = th.t("embedding.first", nil)
	return p
}

// drawer is anything drawn into a canvas (a *plot.Plot).
type drawer interface{ Draw(draw.Canvas) }
