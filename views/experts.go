package views

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"loupe/i18n"
	"loupe/session"
	"loupe/trace"
	"loupe/trace/stats"
	"loupe/viz"
)

// ExpertsPanel shows what a mixture-of-experts model read to write the
// selected token: the router's probabilities over every layer's experts
// with the k it chose outlined, the share of each layer's experts the run
// had touched by then, and the bytes that token read against a dense
// model of the same size.
type ExpertsPanel struct {
	widget.BaseWidget
	panelBase // counting, theme, export buttons (SetCount, SetTheme, SetOnExport)

	Title, AtToken, Hover *widget.Label
	Map                   *Heatmap
	MapAxes               *Axes // the map with its layers and experts numbered as the Switch off box takes them
	Touched, Bytes        *Bars
	MapNote, TouchedNote  *widget.Label
	BytesNote             *widget.Label

	// The counterfactual: experts to switch off (layer:expert as Numbers
	// counts, filled by clicking cells), how many experts a token runs,
	// and the button that reruns the run shown that way (OnRerun).
	Off      *widget.Entry
	TopK     *widget.Select
	Rerun    *widget.Button
	OnRerun  func()
	RerunBox *fyne.Container

	info    trace.ModelInfo
	tokens  []trace.Token
	steps   []trace.Step
	step    int // index into steps of the token shown; -1: none
	content *fyne.Container
}

// NewExpertsPanel makes an empty panel.
func NewExpertsPanel() *ExpertsPanel {
	p := &ExpertsPanel{step: -1}
	p.Title = boldLabel(tr("views.ex.none", nil))
	p.Title.Wrapping = fyne.TextWrapWord
	p.AtToken, p.Hover = caption(""), widget.NewLabel(tr("views.ex.hover", nil))
	p.Map = NewHeatmap(6, 10)
	p.Map.BottomUp = true
	p.Map.MaxMinWidth = 760
	p.Map.OnHover = p.hover
	p.MapAxes = NewAxes(p.Map, p.countIndex, p.countIndex)
	p.MapAxes.RowTitle, p.MapAxes.ColTitle = tr("viz.layer.axis", nil), tr("viz.expert.axis", nil)
	p.MapAxes.Count = &p.count.Numbering
	p.Touched, p.Bytes = NewBars(), NewBars()
	p.Touched.LabelWidth, p.Bytes.LabelWidth = 110, 200
	p.MapNote, p.TouchedNote, p.BytesNote = caption(""), caption(""), caption("")
	p.Map.OnTap = p.toggle
	p.Off = widget.NewEntry()
	p.Off.SetPlaceHolder(tr("views.ex.placeholder", nil))
	p.TopK = widget.NewSelect(nil, nil)
	p.Rerun = widget.NewButton(tr("views.ex.rerun", nil), func() {
		if p.OnRerun != nil {
			p.OnRerun()
		}
	})
	p.RerunBox = container.NewBorder(nil, nil, widget.NewLabel(tr("views.ex.switch_off", nil)),
		container.NewHBox(widget.NewLabel(tr("views.ex.per_token", nil)), p.TopK, p.Rerun), p.Off)
	p.content = container.NewVBox()
	p.ExtendBaseWidget(p)
	p.render()
	return p
}

// CreateRenderer implements fyne.Widget.
func (p *ExpertsPanel) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewBorder(exportButtons(func(f string) {
		if p.OnExport != nil {
			p.OnExport(f)
		}
	}), nil, nil, nil, NewRowScroll(p.content)))
}

// Display shows the routing that wrote token query (the step whose
// position it is; for a prompt token the first written one) and the
// run's experts up to it.
func (p *ExpertsPanel) Display(info trace.ModelInfo, toks []trace.Token, steps []trace.Step, query int) {
	p.info, p.tokens, p.steps = info, toks, steps
	p.setTopKOptions()
	p.step = -1
	for i, st := range steps {
		if len(st.Experts) > 0 && (st.Pos <= query || p.step < 0) {
			p.step = i // a prompt token: the first written one
		}
	}
	p.draw(query)
}

// Shown is the step on screen and whether there is one.
func (p *ExpertsPanel) Shown() (trace.Step, int, bool) {
	if p.step < 0 || p.step >= len(p.steps) {
		return trace.Step{}, 0, false
	}
	return p.steps[p.step], p.step + 1, true
}

func (p *ExpertsPanel) draw(query int) {
	st, n, ok := p.Shown()
	m := p.info
	switch {
	case m.Experts == 0:
		p.Title.SetText(tr("views.ex.none", nil))
		p.render()
		return
	case !ok:
		p.Title.SetText(tr("views.ex.start", i18n.Args{"K": m.ExpertsPerToken, "E": m.Experts}))
		p.render()
		return
	}
	k := m.ExpertsPerToken
	if len(st.Experts) > 0 && len(st.Experts[0].IDs) > 0 {
		k = len(st.Experts[0].IDs) // a run with a smaller top-k
	}
	p.Title.SetText(Lang.N("views.ex.title", len(st.Experts), i18n.Args{"Token": p.tokName(st.Pos), "K": k, "E": m.Experts, "N": len(st.Experts)}))
	if st.Pos != query {
		p.AtToken.SetText(tr("views.ex.prompt_token", i18n.Args{"Token": p.tokName(query)}))
	} else {
		p.AtToken.SetText(p.routingLine(st))
	}
	p.drawMap(st)
	p.drawTouched(n, k)
	p.drawBytes(k)
	p.render()
}

// routingLine names the strongest choice and the routing mass.
func (p *ExpertsPanel) routingLine(st trace.Step) string {
	var mass float64
	for _, r := range st.Experts {
		mass += stats.RoutingMass(r)
	}
	mass /= float64(len(st.Experts))
	return tr("views.ex.mass", i18n.Args{"Share": nums().Percent(mass)})
}

func (p *ExpertsPanel) drawMap(st trace.Step) {
	L, E := p.info.Layers, p.info.Experts
	grid := make([][]float64, L)
	gaps := map[int]string{}
	for l := range grid {
		grid[l] = make([]float64, E)
		gaps[l] = tr("views.ex.dense", nil)
	}
	var chosen [][2]int
	top := 0.0
	for _, r := range st.Experts {
		if r.Layer < 0 || r.Layer >= L {
			continue
		}
		delete(gaps, r.Layer)
		for e, v := range r.Probs {
			if e < E {
				grid[r.Layer][e] = float64(v)
				top = math.Max(top, float64(v))
			}
		}
		for _, e := range r.IDs {
			chosen = append(chosen, [2]int{r.Layer, e})
		}
	}
	p.Map.Gaps = gaps
	p.Map.Max = top
	p.Map.cell = fyne.NewSize(clampF(720/float32(max(1, E)), 3, 24), clampF(320/float32(max(1, L)), 6, 36))
	p.Map.SetValues(grid)
	p.Map.SetSelected(chosen)
	p.MapAxes.Refresh()
	pair := trace.FormatExperts([]trace.Expert{strongest(st)}, p.count.Base())
	p.MapNote.SetText(tr("views.ex.map_note", i18n.Args{"First": p.count.Layer(0), "Top": nums().Percent(top),
		"K": len(st.Experts[0].IDs), "Pair": pair}))
}

// strongest is the expert the router wanted most for the step, over its
// MoE layers (the first of equals).
func strongest(st trace.Step) trace.Expert {
	var best trace.Expert
	top := float32(-1)
	for _, r := range st.Experts {
		for e, v := range r.Probs {
			if v > top {
				best, top = trace.Expert{Layer: r.Layer, Expert: e}, v
			}
		}
	}
	return best
}

func (p *ExpertsPanel) drawTouched(n, k int) {
	E := p.info.Experts
	ts := stats.ExpertsTouched(p.steps, n, E)
	bars := make([]Bar, len(ts))
	var sum float64
	for i, t := range ts {
		bars[i] = Bar{Label: capitalise(p.count.Layer(t.Layer)), Segments: []float64{t.Share},
			Value: tr("views.ex.of", i18n.Args{"N": t.Count, "E": E, "Share": nums().Percent(t.Share)})}
		sum += t.Share
	}
	p.Touched.SetBars(bars)
	mean := sum / float64(max(1, len(ts)))
	p.TouchedNote.SetText(Lang.N("views.ex.touched_note", n, i18n.Args{"N": n, "Mean": nums().Percent(mean), "K": k,
		"Random": nums().Percent(stats.UniformTouched(E, k, n)), "E": E}))
}

func (p *ExpertsPanel) drawBytes(k int) {
	m := p.info
	read, dense := stats.ExpertBytes(m)
	if dense == 0 {
		p.Bytes.SetBars(nil)
		p.BytesNote.SetText(tr("views.ex.bytes_unknown", nil))
		return
	}
	if k != m.ExpertsPerToken { // a run with a forced smaller top-k
		read -= int64(m.MoELayers) * int64(m.ExpertsPerToken-k) * m.ExpertBytes
	}
	p.Bytes.SetBars([]Bar{
		{Label: tr("views.ex.this_token", nil), Segments: []float64{float64(read) / float64(dense)}, Value: nums().Bytes(float64(read)), Highlight: true},
		{Label: tr("views.ex.dense_model", nil), Segments: []float64{1}, Value: nums().Bytes(float64(dense))},
	})
	why := tr("views.ex.why_faster", i18n.Args{"X": nums().Fixed(float64(dense)/float64(read), 1)})
	if float64(dense) < 1.5*float64(read) {
		why = tr("views.ex.why_same", nil)
	}
	p.BytesNote.SetText(tr("views.ex.bytes_note", i18n.Args{"K": k, "Params": nums().Count(stats.TotalParams(m)),
		"Share": nums().Percent(float64(read) / float64(dense)), "Why": why}))
}

// toggle adds expert col of layer row to the experts to switch off, or
// takes it away.
func (p *ExpertsPanel) toggle(row, col int) {
	es, err := trace.ParseExperts(p.Off.Text, p.count.Base())
	if err != nil {
		es = nil // a half-typed list is replaced
	}
	e := trace.Expert{Layer: row, Expert: col}
	if i := slices.Index(es, e); i >= 0 {
		es = slices.Delete(es, i, i+1)
	} else {
		es = append(es, e)
	}
	p.Off.SetText(trace.FormatExperts(es, p.count.Base()))
}

// Counterfactual reads the experts to switch off (0-based) and the top-k
// chosen (0: the model's).
func (p *ExpertsPanel) Counterfactual() ([]trace.Expert, int, error) {
	es, err := trace.ParseExperts(p.Off.Text, p.count.Base())
	if err != nil {
		return nil, 0, err
	}
	k, _ := strconv.Atoi(p.TopK.Selected)
	if k == p.info.ExpertsPerToken {
		k = 0
	}
	return es, k, nil
}

// setTopKOptions offers 1…k experts per token, the model's k selected.
func (p *ExpertsPanel) setTopKOptions() {
	k := p.info.ExpertsPerToken
	if len(p.TopK.Options) == k {
		return
	}
	opts := make([]string, k)
	for i := range opts {
		opts[i] = strconv.Itoa(i + 1)
	}
	p.TopK.Options = opts
	if k > 0 {
		p.TopK.SetSelected(opts[k-1])
	}
}

func (p *ExpertsPanel) hover(row, col int, v float64) {
	st, _, ok := p.Shown()
	if !ok || row < 0 {
		return
	}
	for _, r := range st.Experts {
		if r.Layer != row || col >= len(r.Probs) {
			continue
		}
		text := tr("views.ex.hover_cell", i18n.Args{"Layer": capitalise(p.count.Layer(row)), "Expert": p.countIndex(col), "P": nums().Percent(float64(r.Probs[col]))})
		for i, e := range r.IDs {
			if e == col {
				text += tr("views.ex.hover_chosen", i18n.Args{"Rank": i + 1, "W": nums().Fixed(float64(r.Weights[i]), 3)})
			}
		}
		p.Hover.SetText(text)
		return
	}
	p.Hover.SetText(tr("views.ex.hover_dense", i18n.Args{"Layer": capitalise(p.count.Layer(row))}))
}

func (p *ExpertsPanel) tokName(pos int) string {
	return tr("views.tok_name", i18n.Args{"Text": clip(Shown(tokenText(p.tokens, pos)), 24), "Pos": pos})
}

func (p *ExpertsPanel) render() {
	objs := []fyne.CanvasObject{p.Title}
	if _, _, ok := p.Shown(); ok && p.info.Experts > 0 {
		objs = append(objs, p.AtToken,
			boldLabel(tr("views.ex.h_map", nil)), p.MapAxes, p.MapNote, p.Hover,
			boldLabel(tr("views.ex.h_touched", nil)), p.Touched, p.TouchedNote,
			boldLabel(tr("views.ex.h_bytes", nil)), p.Bytes, p.BytesNote,
			boldLabel(tr("views.ex.h_whatif", nil)), p.RerunBox,
			caption(tr("views.ex.howto", nil)))
	}
	p.content.Objects = objs
	p.content.Refresh()
}

// view is what the figure draws.
func (p *ExpertsPanel) view() viz.ExpertsView {
	st, n, _ := p.Shown()
	v := viz.ExpertsView{Token: p.tokName(st.Pos), Layers: p.info.Layers, Experts: p.info.Experts, Routes: st.Experts,
		Notes: []string{tr("views.ex.fig_note", nil)}}
	v.Touched = make([]float64, p.info.Layers)
	for l := range v.Touched {
		v.Touched[l] = math.NaN()
	}
	for _, t := range stats.ExpertsTouched(p.steps, n, p.info.Experts) {
		if t.Layer < len(v.Touched) {
			v.Touched[t.Layer] = t.Share
		}
	}
	if read, dense := stats.ExpertBytes(p.info); dense > 0 {
		v.Notes = append(v.Notes, Lang.N("views.ex.fig_bytes", n, i18n.Args{"N": n, "Read": nums().Bytes(float64(read)), "Dense": nums().Bytes(float64(dense))}))
	}
	return v
}

// Figure is the routing of the token shown and the experts touched.
func (p *ExpertsPanel) Figure() viz.Figure {
	if _, _, ok := p.Shown(); !ok {
		return viz.NoData(figTheme(p.FigureTheme), tr("views.ex.fig_none", nil))
	}
	return viz.ExpertsFigure(p.view(), figTheme(p.FigureTheme))
}

// CSV writes the router's probability of every expert of every MoE layer
// for the token shown, whether it ran, its rank and weight, and how many
// of the layer's experts the run had touched by then.
func (p *ExpertsPanel) CSV(d *CSV) error {
	st, n, ok := p.Shown()
	if !ok {
		return errors.New(tr("views.ex.fig_none", nil))
	}
	b := p.count.Base()
	d.KV("position", st.Pos)
	d.KV("token", tokenText(p.tokens, st.Pos))
	d.KV("experts", p.info.Experts)
	d.KV("written_tokens_so_far", n)
	read, dense := stats.ExpertBytes(p.info)
	d.KV("weight_bytes_read", read)
	d.KV("weight_bytes_dense_same_size", dense)
	touched := map[int]int{}
	for _, t := range stats.ExpertsTouched(p.steps, n, p.info.Experts) {
		touched[t.Layer] = t.Count
	}
	d.Row("layer", "expert", "prob", "chosen", "rank", "weight", "experts_touched_in_layer")
	for _, r := range st.Experts {
		for e, pr := range r.Probs {
			chosen, rank, weight := 0, "", ""
			for i, id := range r.IDs {
				if id == e {
					chosen, rank, weight = 1, fmt.Sprint(i+1), fmt.Sprint(r.Weights[i])
				}
			}
			d.Row(r.Layer+b, e+b, pr, chosen, rank, weight, touched[r.Layer])
		}
	}
	return nil
}

// Tab is the tab's title.
func (p *ExpertsPanel) Tab() string { return tr("views.tab.experts", nil) }

// Name is the panel's name for exports and --tab.
func (p *ExpertsPanel) Name() string { return "experts" }

// Object is what the tab holds.
func (p *ExpertsPanel) Object() fyne.CanvasObject { return p }

// ShowView draws the selection of v.
func (p *ExpertsPanel) ShowView(v session.View) {
	if q, ok := tokenAt(v); ok {
		p.Display(v.Info, v.Tokens, v.Steps, q)
	}
}

// Parts are the objects the panel lays out.
func (p *ExpertsPanel) Parts() []fyne.CanvasObject { return parts(p.content) }

var _ Panel = (*ExpertsPanel)(nil)
