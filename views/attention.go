package views

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"loupe/i18n"
	"loupe/session"
	"loupe/trace"
	"loupe/trace/stats"
	"loupe/viz"
)

// AttentionPanel shows, for the selected query token, the layers × heads
// grid of its attention on the source token, the per-layer mean, the
// attention sink, and one head's attention over every earlier token.
type AttentionPanel struct {
	widget.BaseWidget
	panelBase                             // counting, theme, export buttons (SetCount, SetTheme, SetOnExport)
	OnQuery   func(pos int)               // a "show position" button was pressed
	OnExport  func(figure, format string) // figure "attention" or "head", format "png", "svg" or "csv"
	// OnToggleHead gets Ctrl+click on a cell: a head added to, or removed
	// from, the heads to switch off (see SetSelectedHeads).
	OnToggleHead func(layer, head int)
	// Under is laid under the panel in its tab (the heads to switch off).
	Under fyne.CanvasObject

	Title, Sink, Hover, HeadTitle, Missing *widget.Label
	Caption                                *widget.Label // how to read the grid
	Scale                                  *widget.Label // the colour scale
	Grid, Means                            *Heatmap
	row                                    *fyne.Container // the grid and the open head's bars
	room                                   float32         // the height the panel's scroll is given (gridFit)
	maxBars                                int             // the open head's bars that lie beside the grid (0: 16 and others)
	GridAxes, MeansAxes                    *Axes           // the grid and the means with numbered layers and heads
	Head                                   *Bars
	ExportMenu                             *fyne.Menu // the Export… button's figures and formats
	offers                                 *fyne.Container
	gridBox                                *fyne.Container

	info     trace.ModelInfo
	tokens   []trace.Token
	all      []trace.Attention // every capture of the run, for the export's fallback
	query    int
	att      trace.Attention
	has      bool
	source   int
	headL    int
	headH    int
	picked   bool // the user chose the head: keep it across tokens
	content  *fyne.Container
	tab      fyne.CanvasObject // Object: the panel over Under
	exporter *fyne.Container
}

// NewAttentionPanel makes an empty panel.
func NewAttentionPanel() *AttentionPanel {
	p := &AttentionPanel{headL: -1}
	p.Title = boldLabel(tr("views.attn.start", nil))
	p.Sink = caption("")
	p.Hover = caption(hoverHint())
	p.HeadTitle = boldLabel("")
	p.Missing = widget.NewLabel("")
	p.Missing.Wrapping = fyne.TextWrapWord
	p.Sink.Wrapping, p.Hover.Wrapping = fyne.TextWrapWord, fyne.TextWrapWord // long lines must not widen the window
	p.Grid = NewHeatmap(28, 16)
	p.Grid.MaxMinWidth = 12 * 28 // Qwen2.5-1.5B's 12 heads at full width; more heads get narrower cells
	p.Means = NewHeatmap(80, 16)
	p.Means.AsBars = true
	p.Grid.BottomUp, p.Means.BottomUp = true, true
	p.Scale = widget.NewLabel("")
	p.Head = NewBars()
	p.offers = container.NewVBox()
	p.Grid.OnHover = p.hoverCell
	p.Means.OnHover = func(l, _ int, v float64) {
		if _, gap := p.Means.Gaps[l]; gap {
			p.hoverCell(l, 0, v)
		} else if l >= 0 {
			p.Hover.SetText(tr("views.attn.hover_mean", i18n.Args{"Layer": p.count.Layer(l), "Share": nums().Percent(v)}))
		}
	}
	p.Grid.OnTap = func(l, h int) {
		p.picked = true
		p.OpenHead(l, h)
	}
	p.Grid.OnToggle = func(l, h int) {
		if p.OnToggleHead != nil {
			p.OnToggleHead(l, h)
		}
	}
	p.exporter = p.exportBar()
	p.GridAxes = NewAxes(p.Grid, p.countIndex, p.countIndex)
	p.GridAxes.RowTitle, p.GridAxes.ColTitle = tr("viz.layer.axis", nil), tr("viz.head.axis", nil)
	p.GridAxes.Count = &p.count.Numbering // labels kept on a crowded axis are multiples as counted
	p.MeansAxes = NewAxes(p.Means, nil, nil)
	p.MeansAxes.ColTitle = tr("viz.attention.meanaxis", nil)
	p.Caption = caption("")
	// The colour scale stands beside the grid, top value above, 0 below:
	// under it, a deep model's grid or a small window pushed it out of
	// sight.
	// The ramp stretches to the grid's height: with a height of its own
	// it set the grid's least height, too tall for a 1,366 × 768 screen.
	scale := container.NewBorder(p.Scale, widget.NewLabel(nums().Percent(0)), nil, nil, newLegend())
	p.gridBox = container.NewHBox(p.GridAxes, p.MeansAxes, scale)
	p.content = container.NewVBox()
	p.ExtendBaseWidget(p)
	p.render()
	return p
}

// exportBar is the panel's title with one Export… button beside it that
// opens a menu of the figures and formats: six buttons took a row of
// their own, and on 28 layers × 12 heads at 1,366 × 768 that row was
// what cut the caption under the grid.
func (p *AttentionPanel) exportBar() *fyne.Container {
	export := func(fig, f string) func() {
		return func() {
			if p.OnExport != nil {
				p.OnExport(fig, f)
			}
		}
	}
	menu := fyne.NewMenu("",
		fyne.NewMenuItem(tr("views.attn.export.grid_png", nil), export("attention", "png")),
		fyne.NewMenuItem(tr("views.attn.export.grid_svg", nil), export("attention", "svg")),
		fyne.NewMenuItem(tr("views.attn.export.head_png", nil), export("head", "png")),
		fyne.NewMenuItem(tr("views.attn.export.head_svg", nil), export("head", "svg")),
		fyne.NewMenuItem(tr("views.attn.export.grid_csv", nil), export("attention", "csv")),
		fyne.NewMenuItem(tr("views.attn.export.head_csv", nil), export("head", "csv")))
	var btn *widget.Button
	btn = widget.NewButtonWithIcon(tr("views.attn.export.menu", nil), theme.DownloadIcon(), func() {
		c := fyne.CurrentApp().Driver().CanvasForObject(btn)
		if c != nil {
			widget.ShowPopUpMenuAtRelativePosition(menu, c, fyne.NewPos(0, btn.Size().Height), btn)
		}
	})
	p.ExportMenu = menu
	return container.NewBorder(nil, nil, nil, container.NewVBox(btn), p.Title)
}

// SetSelectedHeads frames the heads chosen to be switched off.
func (p *AttentionPanel) SetSelectedHeads(hs []trace.Head) {
	cells := make([][2]int, len(hs))
	for i, h := range hs {
		cells[i] = [2]int{h.Layer, h.Head}
	}
	p.Grid.SetSelected(cells)
}

// newLegend is the colour ramp of the grid, upright: 0 at the bottom,
// the scale's top above.
func newLegend() *Heatmap {
	legend := NewHeatmap(16, 1)
	legend.Gapless, legend.BottomUp = true, true
	ramp := make([][]float64, 32)
	for i := range ramp {
		ramp[i] = []float64{float64(i) / 31}
	}
	legend.SetValues(ramp)
	return legend
}

func boldLabel(s string) *widget.Label {
	l := widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	l.Wrapping = fyne.TextWrapWord
	return l
}

func exportButtons(on func(format string)) *fyne.Container {
	return container.NewHBox(layout.NewSpacer(),
		widget.NewButton(tr("views.export.png", nil), func() { on("png") }),
		widget.NewButton(tr("views.export.svg", nil), func() { on("svg") }),
		widget.NewButton(tr("views.export.csv", nil), func() { on("csv") }))
}

// CreateRenderer implements fyne.Widget.
func (p *AttentionPanel) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewBorder(p.exporter, nil, nil, nil,
		container.New(gridFit{p}, container.NewVScroll(p.content))))
}

// fitBars keeps the open head's bars beside the grid, as many as its
// height holds: a longer list made the row taller than the panel's room
// and cut its last bars and the caption below.
func (p *AttentionPanel) fitBars() {
	n := int((p.gridBox.MinSize().Height - p.HeadTitle.MinSize().Height - theme.Padding()) / barHeight())
	if n == p.maxBars {
		return
	}
	p.maxBars = n
	if p.headL >= 0 && p.has {
		p.OpenHead(p.headL, p.headH)
	}
}

// gridFit lays the panel's scroll out at the room it is given, after
// sizing the grid's cells from that room: layers × heads must be seen
// whole without scrolling, on a 28-layer model at 1,366 × 768 too.
type gridFit struct{ p *AttentionPanel }

func (g gridFit) MinSize(o []fyne.CanvasObject) fyne.Size { return o[0].MinSize() }

func (g gridFit) Layout(o []fyne.CanvasObject, s fyne.Size) {
	g.p.room = s.Height
	g.p.fitCells()
	o[0].Move(fyne.Position{})
	o[0].Resize(s)
}

// fitCells makes the grid's rows as tall as the panel's room allows once
// the texts above and below it have theirs: from 3 to 40 pixels (28
// layers at 1,366 × 768 beside the lesson card get 3: at 4 the caption
// under the grid was cut).
func (p *AttentionPanel) fitCells() {
	rows, _ := p.Grid.Dims()
	if !p.has || rows == 0 || p.room <= 0 {
		return
	}
	// The rest: the texts above and below, and the axes' bands.
	rest := p.content.MinSize().Height - p.row.MinSize().Height + p.gridBox.MinSize().Height - float32(rows)*p.Grid.cell.Height
	ch := clampF((p.room-rest-theme.Padding())/float32(rows), 3, 40)
	defer p.fitBars()
	if ch == p.Grid.cell.Height {
		return
	}
	p.Grid.cell.Height, p.Means.cell.Height = ch, ch
	p.Means.cell.Width = max(90, fyne.MeasureText(p.MeansAxes.ColTitle, theme.TextSize()*0.85, fyne.TextStyle{}).Width+8)
	for _, o := range []fyne.CanvasObject{p.Grid, p.Means, p.GridAxes, p.MeansAxes, p.content} {
		o.Refresh()
	}
}

// Display shows the attention of query on source (source < 0: the
// strongest source other than the first token).
func (p *AttentionPanel) Display(info trace.ModelInfo, toks []trace.Token, att []trace.Attention, query, source int) {
	p.info, p.tokens, p.all, p.query = info, toks, att, query
	p.att, p.has = stats.AttentionAt(att, query)
	if p.has && maxHeads(p.att.Weights) == 0 {
		p.has = false // a capture with no layers or heads: nothing to draw
	}
	if p.has && (source < 0 || source > query) {
		source = stats.StrongestSource(p.att)
	}
	p.source = source
	if !p.has {
		p.showMissing(att, query)
		return
	}
	g, gaps := stats.PadGaps(stats.SourceGrid(p.att, source), p.info)
	p.Grid.Gaps, p.Means.Gaps = gaps, unlabelled(gaps)
	p.Title.SetText(tr("views.attn.title", i18n.Args{"Query": p.tokName(query), "Source": p.tokName(source)}))
	p.Sink.SetText(tr("views.attn.sink", i18n.Args{"Share": nums().Percent(stats.SinkShare(p.att)), "First": p.tokName(0)}))
	p.sizeGrid(len(g), len(g[0]))
	top := stats.ScaleMax(g)
	p.Grid.Max, p.Means.Max = top, top
	p.Scale.SetText(nums().Percent(top))
	p.Grid.SetValues(g)
	p.Caption.SetText(tr("views.attn.caption", i18n.Args{"Query": p.tokName(query), "Source": p.tokName(source),
		"Layers": p.count.Range(len(g)), "Heads": p.count.Range(len(g[0]))}))
	p.Caption.Wrapping = fyne.TextWrapWord
	means := stats.RowMeans(g)
	for l := range gaps {
		means[l] = math.NaN() // a DeltaNet layer has no mean attention
	}
	mg := make([][]float64, len(means))
	for i, m := range means {
		mg[i] = []float64{m}
	}
	p.Means.SetValues(mg)
	p.GridAxes.Refresh()
	p.MeansAxes.Refresh()
	if !p.picked || p.headL < 0 || p.headL >= len(g) || p.headH >= len(g[0]) {
		p.headL, p.headH = bestCell(g)
	}
	p.OpenHead(p.headL, p.headH)
	p.render()
	p.fitCells()
}

// Source is the source position shown, Query the query (for tests).
func (p *AttentionPanel) Source() int { return p.source }

// Shown is the attention the grid shows (captured or recomputed), if any.
func (p *AttentionPanel) Shown() (trace.Attention, bool) { return p.att, p.has }

// Query is the query position of the grid shown.
func (p *AttentionPanel) Query() int { return p.att.QueryPos }

// HasData reports whether the grid shows captured attention.
func (p *AttentionPanel) HasData() bool { return p.has }

func (p *AttentionPanel) sizeGrid(rows, cols int) {
	cw := clampF(440/float32(cols), 18, 56)
	ch := clampF(460/float32(rows), 14, 40)
	p.Grid.cell = fyne.NewSize(cw, ch)
	// As wide as its title: under projector type "mean of heads" ran
	// over the colour scale's "0 %".
	p.Means.cell = fyne.NewSize(max(90, fyne.MeasureText(p.MeansAxes.ColTitle, theme.TextSize()*0.85, fyne.TextStyle{}).Width+8), ch)
}

func clampF(x, lo, hi float32) float32 { return max(lo, min(hi, x)) }

func bestCell(g [][]float64) (int, int) {
	bl, bh, bv := 0, 0, -1.0
	for l, row := range g {
		for h, v := range row {
			if v > bv {
				bl, bh, bv = l, h, v
			}
		}
	}
	return bl, bh
}

// hoverHint is the hover line before a cell is hovered.
// hoverHint is the hover line's text while no cell is under the pointer.
func hoverHint() string { return tr("views.attn.hover", nil) }

// ResetHover puts the hint back in the hover line: the value it showed
// belonged to another run, or named its head in the other counting.
func (p *AttentionPanel) ResetHover() { p.Hover.SetText(hoverHint()) }

func (p *AttentionPanel) hoverCell(l, h int, v float64) {
	if l < 0 {
		return
	}
	if _, gap := p.Grid.Gaps[l]; gap {
		p.Hover.SetText(tr("views.attn.deltanet_layer", i18n.Args{"Layer": p.count.Layer(l)}))
		return
	}
	p.Hover.SetText(tr("views.attn.hover_cell", i18n.Args{"Head": p.layerHead(l, h), "Share": nums().Percent(v), "Source": p.tokName(p.source)}))
}

// OpenHead shows one head's attention over every earlier token.
func (p *AttentionPanel) OpenHead(l, h int) {
	if !p.has || l < 0 || l >= len(p.att.Weights) || h < 0 || h >= len(p.att.Weights[l]) {
		return
	}
	p.headL, p.headH = l, h
	p.Grid.Mark(l, h)
	group := h
	if p.info.KVHeads > 0 && p.info.Heads >= p.info.KVHeads {
		group = h / (p.info.Heads / p.info.KVHeads)
	}
	p.HeadTitle.SetText(tr("views.attn.head_title", i18n.Args{"Head": p.layerHead(l, h), "KV": p.count.KVHead(group),
		"Query": p.tokName(p.att.QueryPos), "N": thousands(p.att.QueryPos + 1)}))
	k := 16
	if p.maxBars > 0 { // as many as lie beside the grid, "others" included
		k = max(1, min(k, p.maxBars-1))
	}
	top, others := stats.TopK(p.att.Weights[l][h], k)
	bars := make([]Bar, 0, len(top)+1)
	scale := 1.0 // bars relative to the largest share, which fills the width
	if len(top) > 0 && top[0].P > 0 {
		scale = 1 / top[0].P
	}
	for _, s := range top {
		if s.P < 0.0005 && s.Pos != p.source { // under 0.05 %: counted in others
			others += s.P
			continue
		}
		bars = append(bars, Bar{Label: fmt.Sprintf("%s %d", clip(Shown(p.text(s.Pos)), 14), s.Pos),
			Segments: []float64{s.P * scale}, Value: nums().Percent(s.P), Highlight: s.Pos == p.source})
	}
	if others > 0 {
		// No bar: on a long prompt the rest is most of the attention, spread thin.
		rest := p.att.QueryPos + 1 - (len(bars))
		// The count goes with the label: "25.4 % over 16 tokens" after
		// the bar ran off the window's edge at projector type.
		bars = append(bars, Bar{Label: tr("views.attn.others", i18n.Args{"N": thousands(rest)}), Value: nums().Percent(others)})
	}
	bars = append(bars, nearBars(p.att.Weights[l][h], p.att.QueryPos, p.source, scale, p.text)...)
	p.Head.LabelWidth = 200
	p.Head.SetBars(bars)
}

// nearShown is how many tokens up to the query the head list also shows
// in reading order when the top 16 cannot hold them all: on a long prompt
// the largest shares are far away, and a head that reads the previous
// token or the current sentence would not show it.
const nearShown = 8

// nearBars are the last nearShown tokens up to query, in order, scaled as
// the top list; none when the sequence is short enough for the top list.
func nearBars(w []float32, query, source int, scale float64, text func(int) string) []Bar {
	if query+1 <= 16+nearShown || query >= len(w) {
		return nil
	}
	bars := []Bar{{Label: tr("views.attn.in_order", nil), Value: tr("views.attn.near", i18n.Args{"N": nearShown})}}
	for i := query - nearShown + 1; i <= query; i++ {
		bars = append(bars, Bar{Label: fmt.Sprintf("%s %d", clip(Shown(text(i)), 14), i),
			Segments: []float64{float64(w[i]) * scale}, Value: nums().Percent(float64(w[i])), Highlight: i == source})
	}
	return bars
}

// Head returns the open head (layer, head).
func (p *AttentionPanel) OpenedHead() (int, int) { return p.headL, p.headH }

func (p *AttentionPanel) showMissing(att []trace.Attention, query int) {
	p.Title.SetText(tr("views.attn.none_for", i18n.Args{"Token": p.tokName(query)}))
	p.Sink.SetText("")
	if len(att) == 0 {
		p.Missing.SetText(tr("views.attn.none_run", nil))
	} else {
		p.Missing.SetText(tr("views.attn.available", nil))
	}
	p.offers.RemoveAll()
	near := nearest(att, query, 8)
	// Four buttons a row: eight in one row of long tokens were 990 px wide
	// and widened the window past a 1,366 px screen.
	buttons := container.NewGridWithColumns(4)
	p.offers.Add(buttons)
	for _, q := range near {
		buttons.Add(widget.NewButton(fmt.Sprintf("%s (%d)", clip(Shown(p.text(q)), 12), q), func() {
			if p.OnQuery != nil {
				p.OnQuery(q)
			}
		}))
	}
	if len(att) > len(near) {
		p.offers.Add(caption(tr("views.attn.more", i18n.Args{"N": thousands(len(att) - len(near))})))
	}
	p.render()
}

// nearest returns up to n captured query positions closest to q, in order.
func nearest(att []trace.Attention, q, n int) []int {
	pos := make([]int, len(att))
	for i, a := range att {
		pos[i] = a.QueryPos
	}
	dist := func(p int) int { return max(p-q, q-p) }
	sort.SliceStable(pos, func(i, j int) bool { return dist(pos[i]) < dist(pos[j]) })
	pos = pos[:min(n, len(pos))]
	sort.Ints(pos)
	return pos
}

// render puts the current widgets in the scroll.
func (p *AttentionPanel) render() {
	p.content.Layout = layout.NewVBoxLayout()
	var objs []fyne.CanvasObject // the title stands beside the Export… button (exportBar)
	switch {
	case p.has:
		// The grid keeps its own height (fitCells), the open head's bars
		// theirs beside it: stretched to the bars, its cells pushed
		// layers off a 768-pixel screen.
		top := container.NewVBox(p.Sink)
		bottom := container.NewVBox(p.Caption, p.Hover) // under both: a sentence as wide as the panel
		p.row = container.NewBorder(nil, nil, container.NewVBox(p.gridBox), nil,
			container.NewVBox(p.HeadTitle, p.Head))
		p.content.Layout = layout.NewBorderLayout(top, bottom, nil, nil)
		objs = []fyne.CanvasObject{top, bottom, p.row}
	case p.Missing.Text != "":
		objs = append(objs, p.Missing, p.offers)
	}
	p.content.Objects = objs
	p.content.Refresh()
}

func (p *AttentionPanel) text(pos int) string {
	if pos >= 0 && pos < len(p.tokens) {
		return p.tokens[pos].Text
	}
	return "?"
}

func (p *AttentionPanel) tokName(pos int) string {
	return tr("views.tok_name", i18n.Args{"Text": clip(Shown(p.text(pos)), 24), "Pos": pos})
}

// clip shortens s to n runes with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Figure is the layers × heads grid of the query on the source, with the
// attention sink in its caption.
func (p *AttentionPanel) Figure() viz.Figure {
	th := figTheme(p.FigureTheme)
	if !p.has {
		return viz.NoData(th, tr("views.attn.none_token", nil))
	}
	m, err := stats.SourceMapOf(p.att, p.source, p.info)
	if err != nil {
		return viz.NoData(th, err.Error())
	}
	g := viz.GridOf(m, texts(p.tokens))
	g.Note = tr("views.attn.sink_note", i18n.Args{"Share": nums().Percent(stats.SinkShare(p.att))})
	return viz.AttentionGrid(g, th)
}

// CSV writes the grid: every layer and head's share on the source.
func (p *AttentionPanel) CSV(d *CSV) error {
	a, ok := p.exported()
	if !ok {
		return errors.New(tr("views.attn.none_token", nil))
	}
	d.Token("query", a.QueryPos, p.tokens)
	d.Token("source", p.source, p.tokens)
	d.Row("layer", "head", "share_on_source")
	b := p.count.Base()
	for l, row := range stats.SourceGrid(a, p.source) {
		for h, v := range row {
			d.Row(l+b, h+b, v)
		}
	}
	return nil
}

// exported is the attention the CSV exports write: the grid shown, or,
// when the query has none, the latest capture before it.
func (p *AttentionPanel) exported() (trace.Attention, bool) {
	if p.has {
		return p.att, true
	}
	return stats.AttentionAt(p.all, stats.LastCaptured(p.all, p.query))
}

// HeadExport exports the open head: its attention over every earlier token.
func (p *AttentionPanel) HeadExport() Exporter { return headExport{p} }

type headExport struct{ *AttentionPanel }

// Figure is the open head's bars, one per key.
func (e headExport) Figure() viz.Figure {
	p := e.AttentionPanel
	th := figTheme(p.FigureTheme)
	a, l, h := p.att, p.headL, p.headH
	if !p.has || l < 0 || l >= len(a.Weights) || h >= len(a.Weights[l]) {
		return viz.NoData(th, tr("views.attn.no_head", nil))
	}
	return viz.HeadBars(texts(p.tokens)[:a.QueryPos+1], a.Weights[l][h], p.HeadTitle.Text, th)
}

// CSV writes the open head's share on every key.
func (e headExport) CSV(d *CSV) error {
	p := e.AttentionPanel
	a, ok := p.exported()
	if !ok {
		return errors.New(tr("views.attn.none_token", nil))
	}
	d.Token("query", a.QueryPos, p.tokens)
	l, h := p.headL, p.headH
	if l < 0 || l >= len(a.Weights) || h < 0 || h >= len(a.Weights[l]) {
		return errors.New(tr("views.attn.no_head", nil))
	}
	d.KV("layer", l+p.count.Base())
	d.KV("head", h+p.count.Base())
	d.Row("key_position", "token", "share")
	for k, w := range a.Weights[l][h] {
		d.Row(k, tokenText(p.tokens, k), w)
	}
	return nil
}

// Tab is the tab's title.
func (p *AttentionPanel) Tab() string { return tr("views.tab.attention", nil) }

// Name is the panel's name for exports and --tab.
func (p *AttentionPanel) Name() string { return "attention" }

// Object is what the tab holds: the panel over Under (the heads to switch
// off), when the app gives one.
func (p *AttentionPanel) Object() fyne.CanvasObject {
	if p.tab == nil {
		p.tab = container.NewBorder(nil, p.Under, nil, nil, p)
	}
	return p.tab
}

// Parts are the objects the panel lays out.
func (p *AttentionPanel) Parts() []fyne.CanvasObject { return parts(p.content) }

// ShowView draws the attention of v's query. While the model writes, the
// newest token has not been read yet: the newest captured one is shown,
// and the title says how far behind it is.
func (p *AttentionPanel) ShowView(v session.View) {
	q, ok := tokenAt(v)
	if !ok {
		return
	}
	aq := q
	if _, ok := stats.AttentionAt(v.Attention, q); !ok && v.Follow && !v.OnDemand {
		// Its attention comes with the next step; once the run is over it
		// is recomputed (the app's on-demand job).
		aq = stats.LastCaptured(v.Attention, q)
	}
	p.Display(v.Info, v.Tokens, v.Attention, aq, v.Source)
	switch {
	case aq == q:
	case v.Running && q-aq == 1:
		p.Title.SetText(p.Title.Text + tr("views.attn.next_step", nil))
	case v.Running:
		// The window asks for a capture a frame, not a token.
		p.Title.SetText(p.Title.Text + tr("views.attn.behind", i18n.Args{"N": q - aq}))
	default:
		p.Title.SetText(p.Title.Text + tr("views.attn.never_read", nil))
	}
	if r := v.Run; r != nil && len(r.Settings.Ablate) > 0 && p.HasData() {
		p.Title.SetText(p.Title.Text + Lang.N("views.attn.ablated", len(r.Settings.Ablate), i18n.Args{"N": len(r.Settings.Ablate)}))
	}
}

var _ Panel = (*AttentionPanel)(nil)
