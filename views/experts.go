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

	"loupe/format"
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
	p.Title = boldLabel("This model has no experts: the Experts panel is for mixture-of-experts models (OLMoE, Qwen3-MoE, Qwen3.5-MoE).")
	p.Title.Wrapping = fyne.TextWrapWord
	p.AtToken, p.Hover = caption(""), widget.NewLabel("Hover a cell for the expert's probability.")
	p.Map = NewHeatmap(6, 10)
	p.Map.BottomUp = true
	p.Map.MaxMinWidth = 760
	p.Map.OnHover = p.hover
	p.Touched, p.Bytes = NewBars(), NewBars()
	p.Touched.LabelWidth, p.Bytes.LabelWidth = 110, 200
	p.MapNote, p.TouchedNote, p.BytesNote = caption(""), caption(""), caption("")
	p.Map.OnTap = p.toggle
	p.Off = widget.NewEntry()
	p.Off.SetPlaceHolder("layer:expert, … — or click cells")
	p.TopK = widget.NewSelect(nil, nil)
	p.Rerun = widget.NewButton("Rerun and compare", func() {
		if p.OnRerun != nil {
			p.OnRerun()
		}
	})
	p.RerunBox = container.NewBorder(nil, nil, widget.NewLabel("Switch off"),
		container.NewHBox(widget.NewLabel("experts per token"), p.TopK, p.Rerun), p.Off)
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
	}), nil, nil, nil, container.NewVScroll(p.content)))
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
		p.Title.SetText("This model has no experts: the Experts panel is for mixture-of-experts models (OLMoE, Qwen3-MoE, Qwen3.5-MoE).")
		p.render()
		return
	case !ok:
		p.Title.SetText(fmt.Sprintf("Generate, then click a written token: each token reads %d of the %d experts of every MoE layer, and this panel shows which.",
			m.ExpertsPerToken, m.Experts))
		p.render()
		return
	}
	k := m.ExpertsPerToken
	if len(st.Experts) > 0 && len(st.Experts[0].IDs) > 0 {
		k = len(st.Experts[0].IDs) // a run with a smaller top-k
	}
	p.Title.SetText(fmt.Sprintf("To write %s the model read %d of the %d experts in each of its %s",
		p.tokName(st.Pos), k, m.Experts, format.Plural(len(st.Experts), "MoE layer")))
	if st.Pos != query {
		p.AtToken.SetText(fmt.Sprintf("%s is part of the prompt: shown is the first written token, whose routing was decided when the model read the prompt's last token.", p.tokName(query)))
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
	return fmt.Sprintf("On average the chosen experts held %s of the router's probability (the rest went to experts that did not run).",
		nums().Percent(mass))
}

func (p *ExpertsPanel) drawMap(st trace.Step) {
	L, E := p.info.Layers, p.info.Experts
	grid := make([][]float64, L)
	gaps := map[int]string{}
	for l := range grid {
		grid[l] = make([]float64, E)
		gaps[l] = "dense layer: no experts"
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
	p.MapNote.SetText(fmt.Sprintf("How to read it: one row per layer (%s at the bottom), one column per expert. The brighter the cell, the more the "+
		"router wanted that expert for this token (brightest = %s). Only the %d outlined experts of each row ran; the others were not read at all.",
		p.count.Layer(0), nums().Percent(top), len(st.Experts[0].IDs)))
}

func (p *ExpertsPanel) drawTouched(n, k int) {
	E := p.info.Experts
	ts := stats.ExpertsTouched(p.steps, n, E)
	bars := make([]Bar, len(ts))
	var sum float64
	for i, t := range ts {
		bars[i] = Bar{Label: capitalise(p.count.Layer(t.Layer)), Segments: []float64{t.Share},
			Value: fmt.Sprintf("%d of %d (%s)", t.Count, E, nums().Percent(t.Share))}
		sum += t.Share
	}
	p.Touched.SetBars(bars)
	mean := sum / float64(max(1, len(ts)))
	p.TouchedNote.SetText(fmt.Sprintf("How to read it: after %s, each bar is the share of that layer's experts chosen at least once. "+
		"On average %s; if the router picked %d experts at random for each token it would be %s. All %d experts stay in memory "+
		"(the file's size), but a token only reads the ones it chose.",
		format.Plural(n, "written token"), nums().Percent(mean), k, nums().Percent(stats.UniformTouched(E, k, n)), E))
}

func (p *ExpertsPanel) drawBytes(k int) {
	m := p.info
	read, dense := stats.ExpertBytes(m)
	if dense == 0 {
		p.Bytes.SetBars(nil)
		p.BytesNote.SetText("The bytes a token reads are known once the model's file is open.")
		return
	}
	if k != m.ExpertsPerToken { // a run with a forced smaller top-k
		read -= int64(m.MoELayers) * int64(m.ExpertsPerToken-k) * m.ExpertBytes
	}
	p.Bytes.SetBars([]Bar{
		{Label: "this token", Segments: []float64{float64(read) / float64(dense)}, Value: nums().Bytes(float64(read)), Highlight: true},
		{Label: "a dense model", Segments: []float64{1}, Value: nums().Bytes(float64(dense))},
	})
	why := fmt.Sprintf("so about %.1f× as many tokens per second on the same memory bandwidth.", float64(dense)/float64(read))
	if float64(dense) < 1.5*float64(read) {
		why = "nearly the same: in this small model the embedding and the output head weigh more than the experts."
	}
	p.BytesNote.SetText(fmt.Sprintf("How to read it: the weights one written token reads — the shared ones (attention, router, output head) and "+
		"%d experts per layer — against a dense model with the same %s parameters, which reads all of them: %s of the bytes, %s",
		k, nums().Count(stats.TotalParams(m)), nums().Percent(float64(read)/float64(dense)), why))
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
		text := fmt.Sprintf("%s, expert %s: router probability %s", capitalise(p.count.Layer(row)), p.countIndex(col), nums().Percent(float64(r.Probs[col])))
		for i, e := range r.IDs {
			if e == col {
				text += fmt.Sprintf(" — chosen, rank %d, its output weighted %.3f", i+1, r.Weights[i])
			}
		}
		p.Hover.SetText(text)
		return
	}
	p.Hover.SetText(capitalise(p.count.Layer(row)) + " is a dense layer: it has no experts.")
}

func (p *ExpertsPanel) tokName(pos int) string {
	return fmt.Sprintf("«%s» (position %d)", clip(format.Visible(tokenText(p.tokens, pos)), 24), pos)
}

func (p *ExpertsPanel) render() {
	objs := []fyne.CanvasObject{p.Title}
	if _, _, ok := p.Shown(); ok && p.info.Experts > 0 {
		objs = append(objs, p.AtToken,
			boldLabel("Router probabilities, layers × experts; the chosen experts outlined"), p.Map, p.MapNote, p.Hover,
			boldLabel("Experts read so far in this run, per layer"), p.Touched, p.TouchedNote,
			boldLabel("Bytes of weights this token read"), p.Bytes, p.BytesNote,
			boldLabel("What if: run the same prompt again without some experts, or with fewer per token"), p.RerunBox,
			caption("Click cells of the map (or type layer:expert pairs) to switch experts off: the router then picks the next best "+
				"ones and shares the weight among them, as the model would without those experts. Rerun and compare shows run A "+
				"(as it was) beside run B (the change) in the Compare tab."))
	}
	p.content.Objects = objs
	p.content.Refresh()
}

// view is what the figure draws.
func (p *ExpertsPanel) view() viz.ExpertsView {
	st, n, _ := p.Shown()
	v := viz.ExpertsView{Token: p.tokName(st.Pos), Layers: p.info.Layers, Experts: p.info.Experts, Routes: st.Experts,
		Notes: []string{"Rows: layers; columns: experts; colour: the router's probability; outlined: the experts that ran. Bars: share of each layer's experts touched so far."}}
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
		v.Notes = append(v.Notes, fmt.Sprintf("After %s; a token reads %s of weights, a dense model of the same size %s.",
			format.Plural(n, "written token"), nums().Bytes(float64(read)), nums().Bytes(float64(dense))))
	}
	return v
}

// Figure is the routing of the token shown and the experts touched.
func (p *ExpertsPanel) Figure() viz.Figure {
	if _, _, ok := p.Shown(); !ok {
		return viz.NoData(figTheme(p.FigureTheme), "no routing: open a mixture-of-experts model, generate, and click a written token")
	}
	return viz.ExpertsFigure(p.view(), figTheme(p.FigureTheme))
}

// CSV writes the router's probability of every expert of every MoE layer
// for the token shown, whether it ran, its rank and weight, and how many
// of the layer's experts the run had touched by then.
func (p *ExpertsPanel) CSV(d *CSV) error {
	st, n, ok := p.Shown()
	if !ok {
		return errors.New("no routing: open a mixture-of-experts model, generate, and click a written token")
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
