package views

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"loupe/format"
	"loupe/i18n"
	"loupe/trace"
	"loupe/trace/stats"
)

// ModelPs is the model's probability of each written token of toks, by
// position, from the steps (0: a prompt token, or a step that did not
// record it).
func ModelPs(toks []trace.Token, steps []trace.Step) []float64 {
	p := make([]float64, len(toks))
	for _, s := range steps {
		if s.Pos >= 0 && s.Pos < len(p) && toks[s.Pos].Generated {
			p[s.Pos] = s.ModelP
		}
	}
	return p
}

// ConfidenceLine is the legend's sentence: what the colours are and the
// run's perplexity.
func ConfidenceLine(steps []trace.Step) string {
	ppl, ok := stats.Perplexity(steps)
	if !ok {
		return tr("views.confidence.plain", nil)
	}
	return tr("views.confidence.ppl", i18n.Args{"PPL": nums().Sig2(ppl)})
}

// confidenceFill is the chip fill of a written token the model gave p.
func confidenceFill(p float64) color.Color {
	return withAlpha(format.Confidence.At(p), format.ConfidenceAlpha)
}

// confidenceLegend shows the ramp as five chips (p = 0 … 1) and the
// sentence with the perplexity, under the stream.
type confidenceLegend struct {
	box   *fyne.Container
	chips []*canvas.Rectangle
	texts []*canvas.Text
	line  *widget.Label
}

// legendPs are the probabilities the legend's chips show.
var legendPs = []float64{0, 0.25, 0.5, 0.75, 1}

func newConfidenceLegend() *confidenceLegend {
	l := &confidenceLegend{line: widget.NewLabel("")}
	l.line.Wrapping = fyne.TextWrapWord
	row := container.NewHBox(widget.NewLabel(tr("views.confidence.p", nil)))
	for _, p := range legendPs {
		r := canvas.NewRectangle(confidenceFill(p))
		r.CornerRadius = 4
		txt := canvas.NewText(nums().Trim(p, 2), color.White)
		txt.TextStyle = fyne.TextStyle{Monospace: true}
		txt.Alignment = fyne.TextAlignCenter
		l.chips, l.texts = append(l.chips, r), append(l.texts, txt)
		row.Add(container.NewStack(r, container.NewPadded(txt)))
	}
	l.box = container.NewBorder(nil, nil, row, nil, l.line)
	l.box.Hide()
	return l
}

// show sets the sentence and recolours the chips for the current theme.
func (l *confidenceLegend) show(line string) {
	fg := theme.Current().Color(theme.ColorNameForeground, fyne.CurrentApp().Settings().ThemeVariant())
	for _, t := range l.texts {
		t.Color = fg
		t.Refresh()
	}
	l.line.SetText(line)
	l.box.Show()
}

// Legend is the legend's sentence ("" when the colouring is off; tests).
func (t *TokenStream) Legend() string {
	if t.legend == nil || !t.legend.box.Visible() {
		return ""
	}
	return t.legend.line.Text
}

// SetConfidence colours each written token i by p[i], the model's
// probability of it (0: left as it is), with the legend line under the
// stream; p nil turns the colouring and the legend off.
func (t *TokenStream) SetConfidence(p []float64, line string) {
	t.probs = p
	shown := t.legend.box.Visible()
	if p == nil {
		t.legend.box.Hide()
	} else {
		t.legend.show(line)
	}
	if shown != t.legend.box.Visible() {
		t.Refresh() // lay the stream out again: the legend takes or gives back its lines
	}
	t.list.Refresh()
}

// Confidence reports whether the stream colours tokens by probability.
func (t *TokenStream) Confidence() bool { return t.probs != nil }
