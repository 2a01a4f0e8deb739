package viz

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"

	"loupe/i18n"
	"loupe/trace/stats"
)

// HeadBars draws one head's attention over every earlier token: a bar per
// token, in reading order, with its percentage ("91 % on purple"). When
// the sequence has more tokens than rows fit (3,139 for a long text), it
// shows the largest ones, with their positions, and an "others" row.
// tokens[i] is the text at position i; weights[i] the attention on it.
func HeadBars(tokens []string, weights []float32, title string, th Theme) Figure {
	th = th.complete()
	if len(weights) == 0 {
		return noData(th, title, th.t("tokens.none", nil))
	}
	note := th.t("headbars.attended", i18n.Args{"Tokens": th.tokens(len(weights))})
	if i := argmax(weights); i >= 0 {
		note = oneLine(note, th.t("headbars.most", i18n.Args{"Token": th.quote(tokenAt(tokens, i)), "Pos": i, "Share": th.pct(float64(weights[i]))}))
	}
	return &frame{th: th, title: title, notes: []string{note}, body: func(c draw.Canvas) {
		drawRows(c, th, func(fit int) *plot.Plot { return headBarsPlot(tokens, weights, fit, th) })
	}}
}

// headBarsPlot shows every token if they fit in fit rows, else the
// fit−1 largest and the sum of the others.
func headBarsPlot(tokens []string, weights []float32, fit int, th Theme) *plot.Plot {
	n := len(weights)
	all := n <= fit
	k := n
	if !all {
		k = max(1, fit-1)
	}
	top, rest := stats.TopK(weights, k)
	idx := make([]int, len(top))
	for j, s := range top {
		idx[j] = s.Pos
	}
	slices.Sort(idx) // the rows keep the prompt's order
	best := argmax(weights)
	var rows []row
	for _, i := range idx {
		r := row{name: visible(tokenAt(tokens, i)), value: float64(weights[i]), color: th.Accent}
		r.name = cut(r.name, 16)
		if !all && i < len(tokens) {
			r.name = fmt.Sprintf("%s #%d", r.name, i)
		}
		r.text = th.pct(float64(weights[i]))
		if i == best {
			r.color = th.Highlight
		}
		rows = append(rows, r)
	}
	if !all {
		rows = append(rows, row{name: th.t("headbars.others", i18n.Args{"N": th.num().Thousands(int64(n - len(idx)))}), value: rest, color: th.Grid, text: th.pct(rest)})
	}
	return rowPlot(rows, th.t("attention.shareaxis", nil), th.percentAxis(), th)
}

// argmax is the position of the largest finite weight, -1 if none.
func argmax(w []float32) int {
	best := -1
	for i, v := range w {
		x := float64(v)
		if !math.IsNaN(x) && !math.IsInf(x, 0) && (best < 0 || v > w[best]) {
			best = i
		}
	}
	return best
}

// tokenAt is tokens[i], or "#i" when the texts are missing.
func tokenAt(tokens []string, i int) string {
	if i >= 0 && i < len(tokens) {
		return tokens[i]
	}
	return fmt.Sprintf("#%d", i)
}

// cut shortens s to at most n runes, marking the cut with '…'.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
