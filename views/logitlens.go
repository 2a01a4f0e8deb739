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

// LogitLensPanel shows, for the selected position, the top-5 next tokens
// after every layer: that layer's residual stream through the final norm
// and the output head. The first layer where the final choice leads is
// marked.
type LogitLensPanel struct {
	widget.BaseWidget
	panelBase // counting, theme, export buttons (SetCount, SetTheme, SetOnExport)

	Title, Lead *widget.Label
	fig         *figureBox
	box         *fyne.Container

	tok    trace.Token
	lens   []trace.LensLayer
	choice int
}

// NewLogitLensPanel makes an empty panel.
func NewLogitLensPanel() *LogitLensPanel {
	p := &LogitLensPanel{Title: boldLabel(tr("views.lens.start", nil)),
		Lead: caption(""), fig: newFigureBox(1000, 640), choice: -1}
	read := caption(tr("views.lens.read", nil))
	p.box = container.NewBorder(exportButtons(func(f string) {
		if p.OnExport != nil {
			p.OnExport(f)
		}
	}), read, nil, nil, NewRowScroll(container.NewVBox(p.Title, p.Lead, p.fig.img)))
	p.ExtendBaseWidget(p)
	return p
}

// CreateRenderer implements fyne.Widget.
func (p *LogitLensPanel) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(p.box) }

// Waiting says the lens of tok is being computed (or why it is not).
func (p *LogitLensPanel) Waiting(msg string) {
	p.Title.SetText(msg)
	p.Lead.SetText("")
	p.lens = nil
	p.fig.show(nil)
}

// Display shows the lens of tok; choice is the token chosen after it (−1:
// the last layer's top candidate).
func (p *LogitLensPanel) Display(tok trace.Token, lens []trace.LensLayer, choice int) {
	p.tok, p.lens, p.choice = tok, lens, choice
	if len(lens) == 0 || len(lens[len(lens)-1].Top) == 0 {
		p.Waiting(tr("views.lens.none", i18n.Args{"Text": clip(Shown(tok.Text), 24), "Pos": tok.Pos}))
		return
	}
	if choice < 0 {
		choice = lens[len(lens)-1].Top[0].ID
	}
	text := "?"
	for _, ll := range lens {
		for _, c := range ll.Top {
			if c.ID == choice {
				text = c.Text
			}
		}
	}
	p.Title.SetText(tr("views.lens.title", i18n.Args{"Text": clip(Shown(tok.Text), 24), "Pos": tok.Pos, "N": len(lens)}))
	first, stays := stats.LensLeads(lens, choice)
	switch {
	case first < 0:
		p.Lead.SetText(tr("views.lens.never", i18n.Args{"Text": clip(Shown(text), 20)}))
	case first == stays:
		p.Lead.SetText(tr("views.lens.stays", i18n.Args{"Text": clip(Shown(text), 20), "Layer": p.count.Layer(first)}))
	default:
		p.Lead.SetText(tr("views.lens.returns", i18n.Args{"Text": clip(Shown(text), 20), "Layer": p.count.Layer(first), "Stays": p.count.Layer(stays)}))
	}
	p.fig.setHeight(lensHeight(len(lens)))
	p.fig.show(p.figure())
}

// lensHeight is the figure's height for a lens of layers rows: rows of
// at least 34 px, so the candidates' text stays at the window's size (a
// 28-layer lens scrolls; the last layers, with the final choice, on top).
func lensHeight(layers int) int {
	return max(640, 170+34*layers)
}

// Figure is the figure shown, for exports.
func (p *LogitLensPanel) Figure() viz.Figure { return orNothing(p.figure(), p.FigureTheme) }

// figure is the lens's figure, nil before a lens.
func (p *LogitLensPanel) figure() viz.Figure {
	if len(p.lens) == 0 {
		return nil
	}
	return viz.LogitLens(p.lens, p.tok.Text, p.tok.Pos, p.choice, figTheme(p.FigureTheme))
}

// Choice is the final choice the figure outlines: the token chosen after
// the position, or the last layer's top candidate (−1 before a lens).
func (p *LogitLensPanel) Choice() int {
	if p.choice >= 0 || len(p.lens) == 0 || len(p.lens[len(p.lens)-1].Top) == 0 {
		return p.choice
	}
	return p.lens[len(p.lens)-1].Top[0].ID
}

// Lens is the lens shown.
func (p *LogitLensPanel) Lens() (trace.Token, []trace.LensLayer) { return p.tok, p.lens }

// CSV writes the top candidates of every layer's lens.
func (p *LogitLensPanel) CSV(d *CSV) error {
	if len(p.lens) == 0 {
		return errors.New("no logit lens shown yet: generate, then click a token")
	}
	d.KV("token position", p.tok.Pos, p.tok.Text)
	choice := p.Choice()
	d.KV("final choice id", choice)
	d.Row("layer", "rank", "id", "text", "p", "final_choice")
	for _, ll := range p.lens {
		for r, c := range ll.Top {
			d.Row(ll.Layer+p.count.Base(), r+1, c.ID, c.Text, c.P, c.ID == choice)
		}
	}
	return nil
}

// Tab is the tab's title.
func (p *LogitLensPanel) Tab() string { return tr("views.tab.logit-lens", nil) }

// Name is the panel's name for exports and --tab.
func (p *LogitLensPanel) Name() string { return "logit-lens" }

// Object is what the tab holds.
func (p *LogitLensPanel) Object() fyne.CanvasObject { return p }

// ShowView draws the selection of v.
func (p *LogitLensPanel) ShowView(v session.View) {
	q, ok := tokenAt(v)
	if !ok {
		return
	}
	choice := -1 // the token chosen after q; none after the last one: the lens's own top
	for _, s := range v.Steps {
		if s.Pos == q+1 {
			choice = s.Chosen.ID
		}
	}
	switch in := v.Inspected; {
	case v.Running:
		p.Waiting(tr("views.lens.busy", nil))
	case in.Has(v.Run, q):
		p.Display(v.Tokens[q], in.Result.Lens, choice)
	case in.Failed(v.Run, q):
		p.Waiting(tr("views.lens.failed", i18n.Args{"Err": in.Err.Error()}))
	default:
		p.Waiting(tr("views.lens.computing", i18n.Args{"Pos": q}))
	}
}

// Parts are the objects the panel lays out.
func (p *LogitLensPanel) Parts() []fyne.CanvasObject { return parts(p.box) }

var _ Panel = (*LogitLensPanel)(nil)
