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

// confidenceLegend is the ramp as five chips (p = 0 … 1), on the line
// under the stream, left of the hover line; its sentence (the run's
// perplexity) is the hover line's text while no token is hovered. One
// line in all: a wrapped sentence under the chips took two rows of the
// strip's room at 1,366 × 768, and the strip showed a cut row of tokens.
type confidenceLegend struct {
	box   *fyne.Container
	chips []*canvas.Rectangle
	texts []*canvas.Text
	line  string
}

// legendPs are the probabilities the legend's chips show.
var legendPs = []float64{0, 0.25, 0.5, 0.75, 1}

func newConfidenceLegend() *confidenceLegend {
	l := &confidenceLegend{}
	l.box = container.NewHBox(widget.NewLabel(tr("views.confidence.p", nil)))
	for _, p := range legendPs {
		r := canvas.NewRectangle(confidenceFill(p))
		r.CornerRadius = 4
		txt := canvas.NewText(nums().Trim(p, 2), color.White)
		txt.TextStyle = fyne.TextStyle{Monospace: true}
		txt.Alignment = fyne.TextAlignCenter
		l.chips, l.texts = append(l.chips, r), append(l.texts, txt)
		l.box.Add(container.NewCenter(container.NewStack(r, container.NewPadded(txt))))
	}
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
	l.line = line
	l.box.Show()
}

// Legend is the legend's sentence ("" when the colouring is off; tests).
func (t *TokenStream) Legend() string {
	if t.legend == nil || !t.legend.box.Visible() {
		return ""
	}
	return t.legend.line
}

// SetConfidence colours each written token i by p[i], the model's
// probability of it (0: left as it is), with the legend's chips and line
// under the stream; p nil turns the colouring and the legend off.
func (t *TokenStream) SetConfidence(p []float64, line string) {
	t.probs = p
	if p == nil {
		t.legend.box.Hide()
	} else {
		t.legend.show(line)
	}
	t.restoreHover()
	if t.below != nil {
		t.below.Refresh() // lay the line out again: the chips come or go
	}
	t.list.Refresh()
}

// restoreHover puts the hover line back to what it says with no token
// under the mouse: the legend's sentence, or how to use the chips.
func (t *TokenStream) restoreHover() {
	text := tr("views.tokens.hint", nil)
	if t.legend.box.Visible() {
		text = t.legend.line
	}
	t.hover.SetText(text)
}

// Confidence reports whether the stream colours tokens by probability.
func (t *TokenStream) Confidence() bool { return t.probs != nil }

// RowsShown is how many rows of chips the strip's height holds now.
func (t *TokenStream) RowsShown() float32 { return t.list.Size().Height / chipHeight() }

// LegendHeight is the legend's height on screen (0 when off).
func (t *TokenStream) LegendHeight() float32 {
	if !t.legend.box.Visible() {
		return 0
	}
	return t.legend.box.Size().Height
}

// HoverHeight is the height of the hover line, one line of text.
func (t *TokenStream) HoverHeight() float32 { return t.hover.MinSize().Height }
