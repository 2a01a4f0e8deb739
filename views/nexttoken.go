package views

import (
	"errors"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"loupe/i18n"
	"loupe/session"
	"loupe/trace"
	"loupe/trace/stats"
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
	panelBase // counting, theme, export buttons (SetCount, SetTheme, SetOnExport)
	// OnBranch asks for a new run from this step with another candidate.
	OnBranch func()

	Title  *widget.Label
	Branch *widget.Button // tr("views.next.branch", nil), on once a step is shown
	Dist   *widget.Label  // which distribution the bars show
	Read   *widget.Label  // how to read the bars
	Bars   *Bars
	tokens []trace.Token
	step   trace.Step
	has    bool
	box    *fyne.Container
	// compact: projector mode, the distribution line hidden (the lesson
	// card explains it) and how to read the bars in one short line.
	compact bool
}

// NewNextTokenPanel makes an empty panel.
func NewNextTokenPanel() *NextTokenPanel {
	p := &NextTokenPanel{Title: boldLabel(tr("views.next.start", nil)), Bars: NewBars()}
	p.Dist = widget.NewLabel("")
	p.Dist.Wrapping = fyne.TextWrapWord
	p.Bars.LabelWidth = 220
	p.Read = caption(p.readGreedy())
	p.Branch = widget.NewButton(tr("views.next.branch", nil), func() {
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
	p.box = container.NewBorder(top, nil, nil, nil, NewRowScroll(container.NewVBox(p.Title, p.Dist, p.Bars, p.Read)))
	p.ExtendBaseWidget(p)
	return p
}

// How to read the bars: greedy, where the model's distribution is the one
// the token came from, and sampling, where the sampler's is beside it.
// Compact, in projector mode, has the short forms.
func (p *NextTokenPanel) readGreedy() string {
	if p.compact {
		return tr("views.next.read_greedy_short", nil)
	}
	return tr("views.next.read_greedy", nil)
}

func (p *NextTokenPanel) readSampled() string {
	if p.compact {
		return tr("views.next.read_sampled_short", nil)
	}
	return tr("views.next.read_sampled", nil)
}

// Compact hides the line that says which distribution the bars show and
// shortens how to read them, so that in projector mode the title, the
// bars and the caption fit 768 pixels.
func (p *NextTokenPanel) Compact(on bool) {
	p.compact = on
	p.setRead()
	if on {
		p.Dist.Hide()
	} else {
		p.Dist.Show()
	}
	p.Refresh()
}

// setRead says how to read the bars of the step shown.
func (p *NextTokenPanel) setRead() {
	if p.has && stats.Sampled(p.step) {
		p.Read.SetText(p.readSampled())
	} else {
		p.Read.SetText(p.readGreedy())
	}
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
		p.Title.SetText(tr("views.next.none_at", i18n.Args{"Pos": pos}))
		p.Bars.SetBars(nil)
		p.Dist.SetText("")
		return
	}
	ctx := ""
	if p.step.Pos-1 >= 0 && p.step.Pos-1 < len(toks) {
		ctx = tr("views.next.after", i18n.Args{"Text": clip(Shown(toks[p.step.Pos-1].Text), 20)})
	}
	sampled := stats.Sampled(p.step)
	p.Title.SetText(tr("views.next.title", i18n.Args{"N": len(p.step.Top), "Pos": p.step.Pos, "After": ctx,
		"Chosen": clip(Shown(p.step.Chosen.Text), 20), "P": ChosenProbs(p.step)}))
	bars := make([]Bar, 0, len(p.step.Top))
	for _, c := range p.step.Top {
		model, value := c.P, tr("views.next.bar_model", i18n.Args{"P": nums().Percent(c.P), "ID": c.ID})
		if m, _, ok := stats.ModelP(p.step, c.ID); sampled && ok {
			model, value = m, tr("views.next.bar_both", i18n.Args{"M": nums().Percent(m), "P": nums().Percent(c.P), "ID": c.ID})
		} else if sampled {
			value = tr("views.next.bar_sampler", i18n.Args{"P": nums().Percent(c.P), "ID": c.ID})
		}
		bars = append(bars, Bar{Label: clip(Shown(c.Text), 18), Segments: []float64{model},
			Value: value, Highlight: c.ID == p.step.Chosen.ID})
	}
	p.setRead()
	p.Bars.SetBars(bars)
	p.Dist.SetText(DistributionNote(p.step))
}

// ChosenProbs is the chosen token's probability, labelled: the model's,
// and when the token was drawn by a sampler the sampler's beside it.
func ChosenProbs(s trace.Step) string {
	if !stats.Sampled(s) {
		return tr("views.next.p_model", i18n.Args{"P": nums().Percent(s.Chosen.P)})
	}
	m, penalised, ok := stats.ModelP(s, s.Chosen.ID)
	switch {
	case !ok:
		return tr("views.next.p_sampler", i18n.Args{"P": nums().Percent(s.Chosen.P)})
	case penalised:
		return tr("views.next.p_penalised", i18n.Args{"M": nums().Percent(m), "P": nums().Percent(s.Chosen.P)})
	}
	return tr("views.next.p_both", i18n.Args{"M": nums().Percent(m), "P": nums().Percent(s.Chosen.P)})
}

// DistributionNote says which distribution a step's candidates come from.
func DistributionNote(s trace.Step) string {
	switch st := s.Stages; {
	case st == nil:
		return tr("views.next.dist_any", nil)
	case st.Greedy:
		return tr("views.next.dist_greedy", nil)
	default:
		last := st.Stages[len(st.Stages)-1]
		return tr("views.next.dist_sampled", i18n.Args{"N": last.Kept})
	}
}

// Figure is the top candidates of the step, the chosen one marked.
func (p *NextTokenPanel) Figure() viz.Figure {
	if !p.has {
		return viz.NoData(figTheme(p.FigureTheme), tr("views.next.none_token", nil))
	}
	return viz.TopCandidates(append([]trace.Candidate(nil), p.step.Top...), p.step.Chosen.ID, figTheme(p.FigureTheme))
}

// CSV writes the candidates with their probabilities.
func (p *NextTokenPanel) CSV(d *CSV) error {
	if !p.has {
		return errors.New(tr("views.next.none_token", nil))
	}
	d.Token("generated", p.step.Pos, p.tokens)
	d.Row("rank", "id", "text", "p", "chosen")
	for i, c := range p.step.Top {
		d.Row(i+1, c.ID, c.Text, c.P, c.ID == p.step.Chosen.ID)
	}
	return nil
}

// Tab is the tab's title.
func (p *NextTokenPanel) Tab() string { return tr("views.tab.next-token", nil) }

// Name is the panel's name for exports and --tab.
func (p *NextTokenPanel) Name() string { return "next-token" }

// Object is what the tab holds.
func (p *NextTokenPanel) Object() fyne.CanvasObject { return p }

// ShowView draws the selection of v.
func (p *NextTokenPanel) ShowView(v session.View) {
	if q, ok := tokenAt(v); ok {
		p.Display(v.Tokens, v.Steps, q)
	}
}

// Parts are the objects the panel lays out.
func (p *NextTokenPanel) Parts() []fyne.CanvasObject { return parts(p.box) }

var (
	_ Panel     = (*NextTokenPanel)(nil)
	_ Compacter = (*NextTokenPanel)(nil)
)
