package views

import (
	"errors"
	"fmt"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"loupe/i18n"
	"loupe/session"
	"loupe/trace"
	"loupe/viz"
)

// DeltaNetPanel shows what a Gated DeltaNet layer (Qwen3.5's recurrent
// layers) does instead of attention: per head and token the decay α (how
// much of its memory the head keeps) and the write strength β (how hard
// the token is written in), and the size of the memory over the sequence.
type DeltaNetPanel struct {
	widget.BaseWidget
	panelBase // counting, theme, export buttons (SetCount, SetTheme, SetOnExport)

	Title, Why, AtToken, Hover *widget.Label
	Layer                      *widget.Select
	Alpha, Beta, Norm          *Heatmap
	NormScale                  *widget.Label

	info    trace.ModelInfo
	tokens  []trace.Token
	data    []trace.DeltaNet
	query   int
	shown   int   // index into data
	binsA   []int // first token of each column of the α and β maps (and one past the end)
	content *fyne.Container
}

// maxColumns bounds the token columns drawn: a longer sequence is shown
// in bins of consecutive tokens (their mean).
const maxColumns = 480

// NewDeltaNetPanel makes an empty panel.
func NewDeltaNetPanel() *DeltaNetPanel {
	p := &DeltaNetPanel{query: -1}
	p.Title = boldLabel(tr("views.dn.none_model", nil))
	p.Why = widget.NewLabel("")
	p.Why.Wrapping = fyne.TextWrapWord
	p.AtToken, p.Hover = widget.NewLabel(""), widget.NewLabel(tr("views.dn.hover", nil))
	p.AtToken.Wrapping = fyne.TextWrapWord
	p.NormScale = widget.NewLabel("")
	p.Layer = widget.NewSelect(nil, func(s string) { p.pick(s) })
	p.Alpha, p.Beta, p.Norm = NewHeatmap(1.5, 14), NewHeatmap(1.5, 14), NewHeatmap(1.5, 14)
	p.Alpha.Gapless, p.Beta.Gapless, p.Norm.Gapless = true, true, true
	p.Alpha.Max, p.Beta.Max = 1, 1
	p.Alpha.OnHover = func(r, c int, _ float64) { p.hover("α", r, c) }
	p.Beta.OnHover = func(r, c int, _ float64) { p.hover("β", r, c) }
	p.Norm.OnHover = func(r, c int, _ float64) { p.hoverNorm(r, c) }
	p.content = container.NewVBox()
	p.ExtendBaseWidget(p)
	p.render()
	return p
}

// CreateRenderer implements fyne.Widget.
func (p *DeltaNetPanel) CreateRenderer() fyne.WidgetRenderer {
	export := func(f string) func() {
		return func() {
			if p.OnExport != nil {
				p.OnExport(f)
			}
		}
	}
	bar := container.NewHBox(widget.NewLabel(tr("views.dn.layer", nil)), p.Layer, layout.NewSpacer(),
		widget.NewButton(tr("views.export.png", nil), export("png")), widget.NewButton(tr("views.export.svg", nil), export("svg")), widget.NewButton(tr("views.export.csv", nil), export("csv")))
	return widget.NewSimpleRenderer(container.NewBorder(bar, nil, nil, nil, container.NewScroll(p.content)))
}

// Display shows the run's DeltaNet captures; query is the selected token.
func (p *DeltaNetPanel) Display(info trace.ModelInfo, toks []trace.Token, dn []trace.DeltaNet, query int) {
	p.info, p.tokens, p.data, p.query = info, toks, dn, query
	opts := make([]string, len(dn))
	for i, d := range dn {
		opts[i] = p.count.Layer(d.Layer)
	}
	p.Layer.Options = opts
	if p.shown >= len(dn) {
		p.shown = 0
	}
	if len(dn) > 0 && p.Layer.Selected != opts[p.shown] {
		p.Layer.SetSelected(opts[p.shown]) // calls pick
		return
	}
	p.draw()
}

// Shown returns the capture on screen.
func (p *DeltaNetPanel) Shown() (trace.DeltaNet, bool) {
	if p.shown < len(p.data) {
		return p.data[p.shown], true
	}
	return trace.DeltaNet{}, false
}

func (p *DeltaNetPanel) pick(s string) {
	for i, d := range p.data {
		if p.count.Layer(d.Layer) == s {
			p.shown = i
		}
	}
	p.draw()
}

// WhyNoAttention is the panel's plain sentence on what such a layer keeps.
func WhyNoAttention(info trace.ModelInfo) string {
	return tr("views.dn.why", i18n.Args{"Heads": info.DeltaNetHeads, "K": info.DeltaNetKeyDim, "V": info.DeltaNetValDim})
}

func (p *DeltaNetPanel) draw() {
	d, ok := p.Shown()
	if !ok || len(d.Alpha) == 0 {
		p.Title.SetText(tr("views.dn.none", nil))
		if len(p.info.LayerTypes) > 0 {
			p.Title.SetText(tr("views.dn.start", nil))
		}
		p.render()
		return
	}
	T, heads := len(d.Alpha), len(d.Alpha[0])
	p.Title.SetText(tr("views.dn.title", i18n.Args{"Layer": capitalise(p.count.Layer(d.Layer)), "Heads": heads, "N": T}))
	p.Why.SetText(WhyNoAttention(p.info))
	p.binsA = bins(T)
	p.Alpha.SetValues(binnedMap(d.Alpha, p.binsA))
	p.Beta.SetValues(binnedMap(d.Beta, p.binsA))
	norms := binnedMap(normByToken(d), p.binsA)
	top := 0.0
	for _, row := range norms {
		for _, v := range row {
			if v == v {
				top = max(top, v)
			}
		}
	}
	p.Norm.Max = top
	p.Norm.SetValues(norms)
	p.NormScale.SetText(tr("views.dn.scale", i18n.Args{"Top": nums().Number(fmt.Sprintf("%.3g", top))}))
	for _, h := range []*Heatmap{p.Alpha, p.Beta, p.Norm} {
		h.cell = fyne.NewSize(clampF(720/float32(max(1, len(p.binsA)-1)), 1.5, 24), clampF(160/float32(heads), 6, 18))
	}
	p.AtToken.SetText(p.tokenLine(d))
	p.render()
}

// tokenLine sums up the selected token: mean α and β, the head that
// forgets most.
func (p *DeltaNetPanel) tokenLine(d trace.DeltaNet) string {
	q := p.query
	if q >= len(d.Alpha) {
		q = len(d.Alpha) - 1 // the newest token is read at the next step
	}
	if q < 0 {
		return tr("views.dn.click", nil)
	}
	var ma, mb float64
	low := 0
	for j, a := range d.Alpha[q] {
		ma += float64(a)
		mb += float64(d.Beta[q][j])
		if a < d.Alpha[q][low] {
			low = j
		}
	}
	n := float64(len(d.Alpha[q]))
	return tr("views.dn.at", i18n.Args{"Token": p.tokName(q), "A": nums().Fixed(ma/n, 3), "B": nums().Fixed(mb/n, 3),
		"Head": p.count.Head(low), "Low": nums().Fixed(float64(d.Alpha[q][low]), 3)})
}

// bins splits n items into at most maxColumns runs: the first item of each
// and n at the end.
func bins(n int) []int {
	cols := min(n, maxColumns)
	out := make([]int, cols+1)
	for c := range out {
		out[c] = c * n / max(1, cols)
	}
	return out
}

// binnedMap is the heads × columns map of rows [item][head]: the mean of
// each column's items.
func binnedMap(rows [][]float32, b []int) [][]float64 {
	if len(rows) == 0 {
		return nil
	}
	heads := len(rows[0])
	out := make([][]float64, heads)
	for j := range heads {
		out[j] = make([]float64, len(b)-1)
		for c := range len(b) - 1 {
			var s float64
			for i := b[c]; i < b[c+1]; i++ {
				s += float64(rows[i][j])
			}
			out[j][c] = s / float64(max(1, b[c+1]-b[c]))
		}
	}
	return out
}

func (p *DeltaNetPanel) hover(what string, head, col int) {
	d, ok := p.Shown()
	if !ok || head < 0 || col+1 >= len(p.binsA) {
		return
	}
	lo, hi := p.binsA[col], p.binsA[col+1]
	vals := d.Alpha
	if what == "β" {
		vals = d.Beta
	}
	if hi-lo == 1 {
		p.Hover.SetText(fmt.Sprintf("%s, %s: %s = %.3f", p.count.Head(head), p.tokName(lo), what, vals[lo][head]))
		return
	}
	p.Hover.SetText(tr("views.dn.hover_mean", i18n.Args{"Head": p.count.Head(head), "Lo": lo, "Hi": hi - 1, "What": what, "V": nums().Fixed(float64(binnedMap(vals[lo:hi], []int{0, hi - lo})[head][0]), 3)}))
}

func (p *DeltaNetPanel) hoverNorm(head, col int) {
	d, ok := p.Shown()
	if !ok || head < 0 || col+1 >= len(p.binsA) {
		return
	}
	t := p.binsA[col+1] - 1 // the column's last token
	i := lastRecord(d.StatePos, t)
	if i < 0 {
		p.Hover.SetText(tr("views.dn.no_state", nil))
		return
	}
	p.Hover.SetText(tr("views.dn.hover_norm", i18n.Args{"Head": p.count.Head(head), "V": nums().Number(fmt.Sprintf("%.3g", d.StateNorm[i][head])), "Token": p.tokName(d.StatePos[i])}))
}

// lastRecord is the index of the last state record at or before token t,
// -1 when there is none.
func lastRecord(pos []int, t int) int {
	best := -1
	for i, p := range pos {
		if p <= t {
			best = i
		}
	}
	return best
}

// normByToken puts the recorded state norms on the token axis: each token
// shows the last norm recorded at or before it (NaN before the first).
func normByToken(d trace.DeltaNet) [][]float32 {
	heads := len(d.Alpha[0])
	out := make([][]float32, len(d.Alpha))
	i := -1
	for t := range out {
		for i+1 < len(d.StatePos) && d.StatePos[i+1] <= t {
			i++
		}
		out[t] = make([]float32, heads)
		for j := range out[t] {
			out[t][j] = float32(math.NaN())
			if i >= 0 {
				out[t][j] = d.StateNorm[i][j]
			}
		}
	}
	return out
}

func (p *DeltaNetPanel) tokName(pos int) string {
	text := "?"
	if pos >= 0 && pos < len(p.tokens) {
		text = p.tokens[pos].Text
	}
	return tr("views.dn.token", i18n.Args{"Text": clip(Shown(text), 24), "Pos": pos})
}

func (p *DeltaNetPanel) render() {
	objs := []fyne.CanvasObject{p.Title}
	if d, ok := p.Shown(); ok && len(d.Alpha) > 0 {
		// Captions wrap: on one line the French ones were wider than
		// the tab at 1,366 px, and the whole panel scrolled sideways.
		caption := func(s string) *widget.Label {
			l := widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
			l.Wrapping = fyne.TextWrapWord
			return l
		}
		objs = append(objs, p.Why, p.AtToken,
			caption(tr("views.dn.cap_alpha", nil)),
			p.Alpha,
			caption(tr("views.dn.cap_beta", nil)),
			p.Beta,
			caption(tr("views.dn.cap_norm", nil)),
			p.Norm, p.NormScale, p.Hover)
		if len(p.binsA)-1 < len(d.Alpha) {
			objs = append(objs, wrapped(tr("views.dn.binned", i18n.Args{"N": len(d.Alpha), "Cols": len(p.binsA) - 1,
				"Min": len(d.Alpha) / (len(p.binsA) - 1), "Max": (len(d.Alpha) + len(p.binsA) - 2) / (len(p.binsA) - 1)})))
		}
	}
	p.content.Objects = objs
	p.content.Refresh()
}

// capitalise upper-cases the first letter of an ASCII phrase.
func capitalise(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// Figure is the layer's gates and state norms over the tokens.
func (p *DeltaNetPanel) Figure() viz.Figure {
	d, ok := p.Shown()
	if !ok {
		return viz.NoData(figTheme(p.FigureTheme), tr("views.dn.none_fig", nil))
	}
	return viz.DeltaNetFigure(d, WhyNoAttention(p.info), figTheme(p.FigureTheme))
}

// CSV writes α, β and the state norm of every head at every position.
func (p *DeltaNetPanel) CSV(d *CSV) error {
	dn, ok := p.Shown()
	if !ok || len(dn.Alpha) == 0 {
		return errors.New(tr("views.dn.none_fig", nil))
	}
	b := p.count.Base()
	d.KV("layer", dn.Layer+b)
	// state_norm: the norm of the head's state after the position, where
	// it was recorded (every decoded token, each prompt chunk's end).
	norms := map[int][]float32{}
	for i, pos := range dn.StatePos {
		norms[pos] = dn.StateNorm[i]
	}
	d.Row("position", "token", "head", "alpha", "beta", "state_norm")
	for pos := range dn.Alpha {
		for h := range dn.Alpha[pos] {
			var norm any = ""
			if n, ok := norms[pos]; ok && h < len(n) {
				norm = n[h]
			}
			d.Row(pos, tokenText(p.tokens, pos), h+b, dn.Alpha[pos][h], dn.Beta[pos][h], norm)
		}
	}
	return nil
}

// Tab is the tab's title.
func (p *DeltaNetPanel) Tab() string { return tr("views.tab.deltanet", nil) }

// Name is the panel's name for exports and --tab.
func (p *DeltaNetPanel) Name() string { return "deltanet" }

// Object is what the tab holds.
func (p *DeltaNetPanel) Object() fyne.CanvasObject { return p }

// ShowView draws the selection of v.
func (p *DeltaNetPanel) ShowView(v session.View) {
	q, ok := tokenAt(v)
	if !ok {
		return
	}
	var dn []trace.DeltaNet
	if v.Run != nil {
		dn = v.Run.DeltaNet
	}
	p.Display(v.Info, v.Tokens, dn, q)
}

// Parts are the objects the panel lays out.
func (p *DeltaNetPanel) Parts() []fyne.CanvasObject { return parts(p.content) }

var _ Panel = (*DeltaNetPanel)(nil)
