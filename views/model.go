package views

import (
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"loupe/format"
	"loupe/i18n"
	"loupe/session"
	"loupe/trace"
	"loupe/trace/stats"
	"loupe/viz"
)

// ModelRows are the label/value pairs of the Model panel, layers counted
// as count says.
func ModelRows(m trace.ModelInfo, cpu, kernels string, count format.Numbering) [][2]string {
	kv := float64(m.KVBytesPerToken)
	outShare := 0.0
	if m.WeightBytesPerTok > 0 {
		outShare = float64(m.OutputBytesPerTok) / float64(m.WeightBytesPerTok)
	}
	tied := tr("views.model.separate_head", nil)
	if m.TiedEmbeddings {
		tied = tr("views.model.tied_head", nil)
	}
	rows := [][2]string{
		{"Model", fmt.Sprintf("%s (%s, %s)", m.Name, m.Architecture, m.ModelType)},
		{"Folder", m.Path},
		{"Shape", tr("views.model.shape", i18n.Args{"Layers": m.Layers, "Heads": m.Heads, "KVHeads": m.KVHeads, "Dim": m.HeadDim})},
		{"Widths", tr("views.model.widths", i18n.Args{"Hidden": thousands(m.Hidden), "MLP": thousands(m.Intermediate), "Vocab": thousands(m.Vocab), "Context": thousands(m.MaxPositions)})},
		{"Parameters", tr("views.model.params", i18n.Args{"N": nums().Count(stats.TotalParams(m)), "Tied": tied})},
		{"Weights", tr("views.model.weights", i18n.Args{"DType": m.DType, "Bytes": nums().Bytes(float64(m.FileBytes))})},
		{"Read per token", tr("views.model.read", i18n.Args{"W": nums().Bytes(float64(m.WeightBytesPerTok)),
			"Out": nums().Bytes(float64(m.OutputBytesPerTok)), "Share": nums().Percent(outShare)})},
		{"KV cache", kvRow(kv, m.MaxPositions)},
		{"CPU", cpu},
		{"Kernels", kernels},
	}
	if m.Experts > 0 {
		rows = slices.Insert(rows, 5, [2]string{"Experts", tr("views.model.experts", i18n.Args{"E": m.Experts, "K": m.ExpertsPerToken,
			"Active": nums().Count(stats.ActiveParams(m)), "Total": nums().Count(stats.TotalParams(m))})})
		if read, dense := stats.ExpertBytes(m); dense > 0 {
			rows[5][1] += tr("views.model.experts_read", i18n.Args{"Read": nums().Bytes(float64(read)), "Dense": nums().Bytes(float64(dense))})
		}
	}
	if len(m.LayerTypes) > 0 {
		rows = hybridRows(rows, m, count) // model_deltanet.go
	}
	return rows
}

// kvRow is the KV cache's size per token and at the sizes kvSizes gives.
func kvRow(perToken float64, context int) string {
	if context <= 0 { // a config without max_position_embeddings
		return tr("views.model.kv_per_token", i18n.Args{"PerToken": nums().Bytes(perToken)})
	}
	return tr("views.model.kv", i18n.Args{"PerToken": nums().Bytes(perToken), "Sizes": kvSizes(perToken, context)})
}

// kvSizes is a KV cache of perToken bytes at the model's own full
// context, with 4,096 tokens before it for a model whose context is
// longer: sizes the model can reach, not a larger model's.
func kvSizes(perToken float64, context int) string {
	full := tr("views.model.kv_at_full", i18n.Args{"Bytes": nums().Bytes(perToken * float64(context)), "N": thousands(context)})
	if context <= 4096 {
		return full
	}
	return tr("views.model.kv_at", i18n.Args{"Bytes": nums().Bytes(perToken * 4096), "N": thousands(4096)}) + " · " + full
}

// ModelPanel shows the loaded model's architecture, sizes and where its
// parameters sit.
type ModelPanel struct {
	widget.BaseWidget
	panelBase // counting, theme, export buttons (SetCount, SetTheme, SetOnExport)

	form   *fyne.Container
	Shares *Bars
	box    *fyne.Container
	rows   [][2]string
	info   trace.ModelInfo
}

// NewModelPanel makes an empty panel.
func NewModelPanel() *ModelPanel {
	p := &ModelPanel{form: container.New(layout.NewFormLayout()), Shares: NewBars()}
	p.Shares.LabelWidth = 160
	p.box = container.NewBorder(exportButtons(func(f string) {
		if p.OnExport != nil {
			p.OnExport(f)
		}
	}), nil, nil, nil, NewRowScroll(container.NewVBox(p.form,
		boldLabel(tr("views.model.where", nil)), p.Shares)))
	p.ExtendBaseWidget(p)
	return p
}

// CreateRenderer implements fyne.Widget.
func (p *ModelPanel) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(p.box) }

// Rows returns the label/value pairs shown (for tests).
func (p *ModelPanel) Rows() [][2]string { return p.rows }

// Display shows m with the CPU and kernel descriptions.
func (p *ModelPanel) Display(m trace.ModelInfo, cpu, kernels string) {
	p.rows, p.info = ModelRows(m, cpu, kernels, p.count.Numbering), m
	p.form.RemoveAll()
	for _, r := range p.rows {
		k := widget.NewLabelWithStyle(modelRowLabel(r[0]), fyne.TextAlignTrailing, fyne.TextStyle{Bold: true})
		v := widget.NewLabel(r[1])
		v.Wrapping = fyne.TextWrapWord
		p.form.Add(k)
		p.form.Add(v)
	}
	var bars []Bar
	for _, g := range stats.ParamParts(m) {
		if g.Name == "Gated DeltaNet" && g.Params == 0 {
			continue
		}
		bars = append(bars, Bar{Label: (viz.Theme{Lang: Lang}).Part(g.Name), Segments: []float64{g.Of},
			Value: fmt.Sprintf("%s (%s)", nums().Count(g.Params), nums().Percent(g.Of))})
	}
	p.Shares.SetBars(bars)
}

// modelRowLabel is a row's label in the window's language; ModelRows
// names rows in English, the ids hybridRows and the tests find them by.
func modelRowLabel(id string) string {
	return tr("views.model.row."+strings.ReplaceAll(strings.ToLower(id), " ", "_"), nil)
}

// Figure is where the parameters are, one bar a part.
func (p *ModelPanel) Figure() viz.Figure {
	if p.rows == nil {
		return viz.NoData(figTheme(p.FigureTheme), tr("views.model.none", nil))
	}
	return viz.ParamShares(p.info, figTheme(p.FigureTheme))
}

// CSV writes the rows of the panel, label and value.
func (p *ModelPanel) CSV(d *CSV) error {
	d.Row("field", "value")
	for _, r := range p.rows {
		d.Row(r[0], r[1])
	}
	return nil
}

// Tab is the tab's title.
func (p *ModelPanel) Tab() string { return tr("views.tab.model", nil) }

// Name is the panel's name for exports and --tab.
func (p *ModelPanel) Name() string { return "model" }

// Object is what the tab holds.
func (p *ModelPanel) Object() fyne.CanvasObject { return p }

// ShowView draws the selection of v.
// Nothing is drawn until a model is open; the same rows are not drawn
// again (the model does not change with the selection).
func (p *ModelPanel) ShowView(v session.View) {
	if v.Info.Layers == 0 {
		return
	}
	m := v.Info
	if v.ModelName != "" {
		m.Name = v.ModelName
	}
	if p.rows != nil && slices.Equal(ModelRows(m, v.CPU, v.Kernels, p.count.Numbering), p.rows) {
		return
	}
	p.Display(m, v.CPU, v.Kernels)
}

// Parts are the objects the panel lays out.
func (p *ModelPanel) Parts() []fyne.CanvasObject { return parts(p.box) }

var _ Panel = (*ModelPanel)(nil)
