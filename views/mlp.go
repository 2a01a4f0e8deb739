package views

import (
	"errors"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"loupe/format"
	"loupe/i18n"
	"loupe/session"
	"loupe/trace"
	"loupe/viz"
)

// MLPAt finds the captured silu(gate)·up of (layer, pos).
func MLPAt(mlps []trace.MLP, layer, pos int) (trace.MLP, bool) {
	for _, m := range mlps {
		if m.Layer == layer && m.Pos == pos {
			return m, true
		}
	}
	return trace.MLP{}, false
}

// MLPPanel shows the MLP activation silu(gate)·up of the selected token at
// one layer: the few directions that fire among thousands.
type MLPPanel struct {
	widget.BaseWidget
	panelBase // counting, theme, export buttons (SetCount, SetTheme, SetOnExport)

	// Latest shows the newest recorded position before the query when the
	// query has none (the selection follows a generation).
	Latest bool

	Title *widget.Label
	Layer *widget.Select
	img   *canvas.Image
	box   *fyne.Container

	tokens []trace.Token
	mlps   []trace.MLP
	query  int
	shown  trace.MLP
	has    bool
}

// NewMLPPanel makes an empty panel.
func NewMLPPanel() *MLPPanel {
	p := &MLPPanel{Title: boldLabel(tr("views.mlp.start", nil)), query: -1}
	p.Layer = widget.NewSelect(nil, func(string) { p.draw() })
	p.img = canvas.NewImageFromImage(nil)
	p.img.FillMode = canvas.ImageFillContain
	// 300 px high at least: with an MoE layer's two-line title and the
	// three lines of its French caption, 360 made the window 785 px
	// high, past a 768 px screen; the figure still fills what is left.
	p.img.SetMinSize(figureMin(700, 300))
	top := container.NewHBox(widget.NewLabel(tr("views.mlp.layer", nil)), p.Layer, layout.NewSpacer(),
		widget.NewButton(tr("views.export.png", nil), func() { p.export("png") }),
		widget.NewButton(tr("views.export.svg", nil), func() { p.export("svg") }),
		widget.NewButton(tr("views.export.csv", nil), func() { p.export("csv") }))
	read := caption(tr("views.mlp.read", nil))
	p.box = container.NewBorder(container.NewVBox(top, p.Title), read, nil, nil, p.img)
	p.ExtendBaseWidget(p)
	return p
}

func (p *MLPPanel) export(f string) {
	if p.OnExport != nil {
		p.OnExport(f)
	}
}

// CreateRenderer implements fyne.Widget.
func (p *MLPPanel) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(p.box) }

// Shown returns the values drawn, if any.
func (p *MLPPanel) Shown() (trace.MLP, bool) { return p.shown, p.has }

// LayerIndex is the selected layer.
func (p *MLPPanel) LayerIndex() int { return p.Layer.SelectedIndex() }

// Display shows the captured values of query at the selected layer.
func (p *MLPPanel) Display(toks []trace.Token, mlps []trace.MLP, layers, query int) {
	p.tokens, p.mlps, p.query = toks, mlps, query
	if len(p.Layer.Options) != layers || layers > 0 && p.Layer.Options[0] != p.count.Index(0) {
		sel := p.Layer.SelectedIndex()
		opts := make([]string, layers)
		for i := range opts {
			opts[i] = p.count.Index(i) // as View › Count says
		}
		p.Layer.Options = opts
		if sel >= 0 && sel < layers {
			p.Layer.SetSelectedIndex(sel) // the numbering changed: keep the layer
			return
		}
		if layers > 0 {
			p.Layer.SetSelectedIndex(layers / 2) // calls draw
			return
		}
	}
	p.draw()
}

func (p *MLPPanel) draw() {
	l := p.Layer.SelectedIndex()
	q := p.query
	p.shown, p.has = MLPAt(p.mlps, l, q)
	if !p.has && p.Latest {
		for _, m := range p.mlps {
			if m.Layer == l && m.Pos < p.query && (!p.has || m.Pos > p.shown.Pos) {
				p.shown, p.has = m, true
			}
		}
		q = p.shown.Pos
	}
	if !p.has {
		p.img.Image = nil
		p.img.Refresh()
		p.Title.SetText(p.missing(l))
		return
	}
	name := "?"
	if q >= 0 && q < len(p.tokens) {
		name = format.Visible(p.tokens[q].Text)
	}
	title := tr("views.mlp.title", i18n.Args{"Text": clip(name, 24), "Pos": q, "Layer": p.count.Layer(l), "N": thousands(len(p.shown.Values))})
	if p.moeLayer() {
		title = tr("views.mlp.moe_title", i18n.Args{"Text": clip(name, 24), "Pos": q, "Layer": p.count.Layer(l), "Note": moeMLPNote()})
	}
	p.Title.SetText(title)
	if img, err := viz.Image(p.Figure(), 1100, 460, viz.DPI); err == nil {
		p.img.Image = img
		p.img.Refresh()
	}
}

// missing says which positions have values for layer l.
func (p *MLPPanel) missing(l int) string {
	var at []int
	for _, m := range p.mlps {
		if m.Layer == l {
			at = append(at, m.Pos)
		}
	}
	if len(at) == 0 {
		return tr("views.mlp.none_run", nil)
	}
	if len(at) > 6 {
		return tr("views.mlp.none_range", i18n.Args{"Pos": p.query, "Layer": p.count.Layer(l), "First": at[0], "Last": at[len(at)-1], "N": len(at)})
	}
	return tr("views.mlp.none_list", i18n.Args{"Pos": p.query, "Layer": p.count.Layer(l), "List": fmt.Sprint(at)})
}

// moeMLPNote is what the panel says of a mixture-of-experts layer, which
// records no single silu(gate)·up: each token runs a few experts of their own.
func moeMLPNote() string { return tr("views.mlp.moe", nil) }

// moeLayer reports whether the values shown are an MoE layer's: a
// position recorded without values (a dense layer always has I of them).
func (p *MLPPanel) moeLayer() bool { return p.has && len(p.shown.Values) == 0 }

// MLPShown is how many of the largest |values| the MLP figure draws.
const MLPShown = 300

// Figure is the largest MLP values of the token at the layer.
func (p *MLPPanel) Figure() viz.Figure {
	if !p.has {
		return viz.NoData(figTheme(p.FigureTheme), tr("views.mlp.none_fig", nil))
	}
	if p.moeLayer() {
		return viz.NoData(figTheme(p.FigureTheme), tr("views.mlp.moe_fig", nil))
	}
	return viz.MLPValues(p.shown.Values, MLPShown, p.Title.Text, figTheme(p.FigureTheme))
}

// CSV writes every value of the activation.
func (p *MLPPanel) CSV(d *CSV) error {
	if !p.has {
		return errors.New(tr("views.mlp.none_fig", nil))
	}
	if p.moeLayer() {
		return errors.New("a mixture-of-experts layer has no single MLP activation: see the Experts tab")
	}
	d.Token("query", p.shown.Pos, p.tokens)
	d.KV("layer", p.shown.Layer+p.count.Base())
	d.Row("index", "silu_gate_times_up")
	for i, v := range p.shown.Values {
		d.Row(i, v)
	}
	return nil
}

// Tab is the tab's title.
func (p *MLPPanel) Tab() string { return tr("views.tab.mlp", nil) }

// Name is the panel's name for exports and --tab.
func (p *MLPPanel) Name() string { return "mlp" }

// Object is what the tab holds.
func (p *MLPPanel) Object() fyne.CanvasObject { return p }

// ShowView draws the selection of v.
func (p *MLPPanel) ShowView(v session.View) {
	if q, ok := tokenAt(v); ok {
		p.Latest = v.Follow && !v.OnDemand
		p.Display(v.Tokens, v.MLPs, v.Info.Layers, q)
	}
}

// Parts are the objects the panel lays out.
func (p *MLPPanel) Parts() []fyne.CanvasObject { return parts(p.box) }

var _ Panel = (*MLPPanel)(nil)
