package views

import (
	"errors"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"loupe/format"
	"loupe/trace"
	"loupe/viz"
)

// StepFor finds the step behind the selected position: the step that chose
// a generated token, or for a prompt token the prediction made after it.
func StepFor(steps []trace.Step, toks []trace.Token, pos int) (trace.Step, bool) {
	want := pos
	if pos >= 0 && pos < len(toks) && !toks[pos].Generated {
		want = pos + 1
	}
	for _, s := range steps {
		if s.Pos == want {
			return s, true
		}
	}
	return trace.Step{}, false
}

// NextTokenPanel shows the top candidates of one step with their
// probabilities, the chosen token highlighted.
type NextTokenPanel struct {
	widget.BaseWidget
	OnExport func(format string)
	// OnBranch asks for a new run from this step with another candidate.
	OnBranch func()

	Theme func() viz.Theme // of the exported figure

	Title  *widget.Label
	Branch *widget.Button // "Branch from here…", on once a step is shown
	Dist   *widget.Label  // which distribution the bars show
	Bars   *Bars
	tokens []trace.Token
	step   trace.Step
	has    bool
	box    *fyne.Container
}

// NewNextTokenPanel makes an empty panel.
func NewNextTokenPanel() *NextTokenPanel {
	p := &NextTokenPanel{Title: boldLabel("Generate, then click a token to see the candidates it was drawn from."), Bars: NewBars()}
	p.Dist = widget.NewLabel("")
	p.Dist.Wrapping = fyne.TextWrapWord
	p.Bars.LabelWidth = 220
	read := caption("How to read it: each bar is one candidate for the next token and its probability; the highlighted one was written. " +
		"The whole vocabulary sums to 100 %: what these bars leave is spread over all the other tokens.")
	p.Branch = widget.NewButton("Branch from here…", func() {
		if p.OnBranch != nil {
			p.OnBranch()
		}
	})
	p.Branch.Disable()
	top := container.NewBorder(nil, nil, p.Branch, nil, exportButtons(func(f string) {
		if p.OnExport != nil {
			p.OnExport(f)
		}
	}))
	p.box = container.NewBorder(top, nil, nil, nil, container.NewVScroll(container.NewVBox(p.Title, p.Dist, p.Bars, read)))
	p.ExtendBaseWidget(p)
	return p
}

// CreateRenderer implements fyne.Widget.
func (p *NextTokenPanel) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(p.box) }

// Step returns the step shown.
func (p *NextTokenPanel) Step() (trace.Step, bool) { return p.step, p.has }

// Display shows the step behind position pos.
func (p *NextTokenPanel) Display(toks []trace.Token, steps []trace.Step, pos int) {
	p.tokens = toks
	p.step, p.has = StepFor(steps, toks, pos)
	if p.has && len(p.step.Top) > 0 {
		p.Branch.Enable()
	} else {
		p.Branch.Disable()
	}
	if !p.has {
		p.Title.SetText(fmt.Sprintf("No candidates at position %d: the engine records them for generated tokens and the last prompt token.", pos))
		p.Bars.SetBars(nil)
		p.Dist.SetText("")
		return
	}
	ctx := ""
	if p.step.Pos-1 >= 0 && p.step.Pos-1 < len(toks) {
		ctx = fmt.Sprintf(" after «%s»", clip(format.Visible(toks[p.step.Pos-1].Text), 20))
	}
	p.Title.SetText(fmt.Sprintf("Top %d candidates for position %d%s; chosen: «%s» (%.1f %%)",
		len(p.step.Top), p.step.Pos, ctx, clip(format.Visible(p.step.Chosen.Text), 20), 100*p.step.Chosen.P))
	bars := make([]Bar, 0, len(p.step.Top))
	for _, c := range p.step.Top {
		bars = append(bars, Bar{Label: fmt.Sprintf("%s", clip(format.Visible(c.Text), 18)), Segments: []float64{c.P},
			Value: fmt.Sprintf("%.1f %%  id %d", 100*c.P, c.ID), Highlight: c.ID == p.step.Chosen.ID})
	}
	p.Bars.SetBars(bars)
	p.Dist.SetText(DistributionNote(p.step))
}

// DistributionNote says which distribution a step's candidates come from.
func DistributionNote(s trace.Step) string {
	switch st := s.Stages; {
	case st == nil:
		return "Shown: the distribution the token was chosen from (greedy: softmax of the logits after the penalties; sampling: after temperature, top-k, top-p and min-p, renormalised)."
	case st.Greedy:
		return "Shown: softmax of the logits after the penalties, over the whole vocabulary. Greedy decoding takes the first; nothing is drawn."
	default:
		last := st.Stages[len(st.Stages)-1]
		return fmt.Sprintf("Shown: the final distribution, after the penalties, temperature, top-k, top-p and min-p, renormalised over the %d tokens left: the one the seeded draw used. The Sampler tab shows every stage.", last.Kept)
	}
}

// Figure is the top candidates of the step, the chosen one marked.
func (p *NextTokenPanel) Figure() viz.Figure {
	if !p.has {
		return viz.NoData(figTheme(p.Theme), "no candidates recorded for this token")
	}
	return viz.TopCandidates(append([]trace.Candidate(nil), p.step.Top...), p.step.Chosen.ID, figTheme(p.Theme))
}

// CSV writes the candidates with their probabilities.
func (p *NextTokenPanel) CSV(d *CSV) error {
	if !p.has {
		return errors.New("no candidates recorded for this token")
	}
	d.Token("generated", p.step.Pos, p.tokens)
	d.Row("rank", "id", "text", "p", "chosen")
	for i, c := range p.step.Top {
		d.Row(i+1, c.ID, c.Text, c.P, c.ID == p.step.Chosen.ID)
	}
	return nil
}
