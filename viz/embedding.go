package viz

import (
	"fmt"
	"loupe/format"
	"math"

	"gonum.org/v1/plot/vg/draw"
	"loupe/trace/stats"
)

// EmbeddingRowInfo says where a row comes from: row Row of a Rows × len
// table, and whether the same table is the output head (tied).
type EmbeddingRowInfo struct {
	Token     string
	Row, Rows int
	Tied      bool
}

// RowShape is the article's "row 24,503 of 151,936 × 1,536".
func RowShape(row, rows, width int) string {
	return fmt.Sprintf("row %s of %s × %s", format.Thousands(int64(row)), format.Thousands(int64(rows)), format.Thousands(int64(width)))
}

// TiedNote says whether the embedding table is also the output head.
func TiedNote(tied bool) string {
	if tied {
		return "tied: the same table is the output head (scores = final vector · each row)"
	}
	return "not tied: the output head is a table of its own (lm_head)"
}

// EmbeddingRow draws one token's row of the embedding table: the values
// as a strip of colour, every number, left to right in rows of 64 (a
// diverging scale: purple negative, orange positive), and the same values
// as bars below, with the table's shape, the first numbers as the article
// prints them, and the row's statistics.
func EmbeddingRow(values []float32, in EmbeddingRowInfo, th Theme) Figure {
	th = th.complete()
	title := fmt.Sprintf("%s: %s", quote(in.Token), RowShape(in.Row, in.Rows, len(values)))
	if len(values) == 0 {
		return noData(th, title, "no embedding row")
	}
	st := stats.StatsOf(values)
	notes := []string{
		format.FirstNumbers(values, 8),
		fmt.Sprintf("norm %.3f · min %.3f · max %.3f · mean |x| %.4f", st.Norm, st.Min, st.Max, st.MeanAbs),
		TiedNote(in.Tied),
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
	p.X.Label.Text = fmt.Sprintf("dimension within a line of %d (the next line continues)", cols)
	p.X.Padding, p.Y.Padding = 0, 0
	p.X.Min, p.X.Max = -0.5, float64(cols)-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(lines)-0.5
	p.X.Tick.Marker = integerTicks{}
	labels := make([]string, lines)
	for i := range labels {
		labels[i] = format.Thousands(int64(i * cols))
	}
	p.Y.Tick.Marker = sparseLabels(labels, 8)
	p.Y.Label.Text = "first dimension"
	return p
}

// drawer is anything drawn into a canvas (a *plot.Plot).
type drawer interface{ Draw(draw.Canvas) }
