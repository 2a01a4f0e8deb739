package views

import (
	"errors"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"loupe/i18n"
	"loupe/session"
	"loupe/trace"
	"loupe/viz"
)

// SamplerPanel shows, for the selected step, the candidates after each
// stage of the sampler in its real order (penalties, temperature, top-k,
// top-p, min-p, then the seeded draw): removed ones greyed, the drawn one
// marked. Greedy says so plainly.
type SamplerPanel struct {
	widget.BaseWidget
	panelBase // counting, theme, export buttons (SetCount, SetTheme, SetOnExport)

	Title, Order *widget.Label
	fig          *figureBox
	box          *fyne.Container

	tokens   []trace.Token
	step     trace.Step
	settings trace.Settings
	has      bool
}

// NewSamplerPanel makes an empty panel.
func NewSamplerPanel() *SamplerPanel {
	p := &SamplerPanel{Title: boldLabel(tr("views.sampler.start", nil)),
		Order: caption(""), fig: newFigureBox(1000, 460)}
	read := caption(tr("views.sampler.read", nil))
	p.box = container.NewBorder(exportButtons(func(f string) {
		if p.OnExport != nil {
			p.OnExport(f)
		}
	}), read, nil, nil, NewRowScroll(container.NewVBox(p.Title, p.Order, p.fig.img)))
	p.ExtendBaseWidget(p)
	return p
}

// CreateRenderer implements fyne.Widget.
func (p *SamplerPanel) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(p.box) }

// Display shows the stages of the step behind position pos.
func (p *SamplerPanel) Display(toks []trace.Token, steps []trace.Step, pos int, s trace.Settings) {
	p.settings, p.tokens = s, toks
	p.step, p.has = StepFor(steps, toks, pos)
	if p.has && p.step.Stages == nil {
		p.has = false
	}
	if !p.has {
		p.Title.SetText(tr("views.sampler.none", i18n.Args{"Pos": pos}))
		p.Order.SetText("")
		p.fig.show(nil)
		return
	}
	st := p.step.Stages
	if st.Greedy {
		p.Title.SetText(tr("views.sampler.greedy", i18n.Args{"Pos": p.step.Pos, "Text": clip(Shown(p.step.Chosen.Text), 20)}))
		p.Order.SetText(tr("views.sampler.one_column", nil))
	} else {
		p.Title.SetText(tr("views.sampler.title", i18n.Args{"Pos": p.step.Pos, "Text": clip(Shown(p.step.Chosen.Text), 20), "Seed": s.Seed, "U": nums().Fixed(st.U, 4)}))
		p.Order.SetText(tr("views.sampler.order", nil))
	}
	p.fig.show(p.figure())
}

// Figure is the figure shown, for exports.
func (p *SamplerPanel) Figure() viz.Figure { return orNothing(p.figure(), p.FigureTheme) }

// figure is the stages' figure, nil without stages.
func (p *SamplerPanel) figure() viz.Figure {
	if !p.has {
		return nil
	}
	return viz.SamplerStages(*p.step.Stages, p.settings, figTheme(p.FigureTheme))
}

// Step is the step shown.
func (p *SamplerPanel) Step() (trace.Step, bool) { return p.step, p.has }

// CSV writes each candidate's logit and probability after every stage.
func (p *SamplerPanel) CSV(d *CSV) error {
	if !p.has || p.step.Stages == nil {
		return errors.New("no sampler stages for this token")
	}
	st := p.step.Stages
	d.Token("generated", p.step.Pos, p.tokens)
	d.KV("greedy", st.Greedy)
	d.KV("drawn id", st.Drawn)
	if !st.Greedy {
		d.KV("seed", p.settings.Seed)
		d.KV("u", st.U)
	}
	left := []any{}
	for _, stage := range st.Stages {
		left = append(left, fmt.Sprintf("%s:%d", stage.Name, stage.Kept))
	}
	d.KV("tokens left after each stage", left...)
	head := []any{"rank", "id", "text", "logit_after_penalties"}
	for _, stage := range st.Stages {
		head = append(head, "p_after_"+stage.Name)
	}
	d.Row(append(head, "p_final", "drawn")...)
	for i, c := range st.Candidates {
		rec := []any{i + 1, c.ID, c.Text, st.Logits[i]}
		for _, stage := range st.Stages {
			rec = append(rec, stage.P[i])
		}
		d.Row(append(rec, c.P, c.ID == st.Drawn)...)
	}
	return nil
}

// Tab is the tab's title.
func (p *SamplerPanel) Tab() string { return tr("views.tab.sampler", nil) }

// Name is the panel's name for exports and --tab.
func (p *SamplerPanel) Name() string { return "sampler" }

// Object is what the tab holds.
func (p *SamplerPanel) Object() fyne.CanvasObject { return p }

// ShowView draws the selection of v.
func (p *SamplerPanel) ShowView(v session.View) {
	if q, ok := tokenAt(v); ok {
		p.Display(v.Tokens, v.Steps, q, v.Settings)
	}
}

// Parts are the objects the panel lays out.
func (p *SamplerPanel) Parts() []fyne.CanvasObject { return parts(p.box) }

var _ Panel = (*SamplerPanel)(nil)
