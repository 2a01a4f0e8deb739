package views

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"

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

// maxKVRows bounds the rows of a KV heatmap in the window; longer caches
// are shown as means of consecutive tokens (hover names them).
const maxKVRows = 400

// KVCostLine is the article's comparison at n tokens: what the cache adds
// to every token written, set against the weights.
func KVCostLine(info trace.ModelInfo, n int) string {
	s := stats.KVSizesOf(info)
	f32, bf := float64(s.BytesF32)*float64(n), float64(s.BytesBF)*float64(n)
	w := float64(info.WeightBytesPerTok)
	line := tr("views.kv.cost", i18n.Args{"N": thousands(n), "F32": nums().Bytes(f32), "BF": nums().Bytes(bf)})
	if w > 0 {
		line += tr("views.kv.beside", i18n.Args{"W": nums().Bytes(w), "Share": nums().Percent(f32 / w)})
	}
	return line
}

// KVCachePanel shows the real cached keys (after RoPE) and values of one
// layer and KV head for the tokens so far, and what the cache costs.
type KVCachePanel struct {
	widget.BaseWidget
	panelBase // counting, theme, export buttons (SetCount, SetTheme, SetOnExport)
	// OnChoose asks for the rows of another layer or KV head.
	OnChoose func(layer, kvHead int)

	Title, Sizes, Live, Totals, Hover *widget.Label
	Read                              *widget.Label // how to read the maps, under the scroll
	Layer, KVHead                     *widget.Select
	Keys, Values                      *Heatmap
	box                               *fyne.Container

	info   trace.ModelInfo
	tokens []trace.Token
	kv     trace.KVRows
	starts []int // first token of each heatmap row
	quiet  bool  // setting the selects: no OnChoose
	// compact: projector mode, the sizes, live size and totals hidden
	// (the lesson card gives them) and the maps' rows lower.
	compact bool
	// holder is the selects' own placeholder: its width is theirs.
	holder string
}

// NewKVCachePanel makes an empty panel.
func NewKVCachePanel() *KVCachePanel {
	p := &KVCachePanel{
		Title: boldLabel(tr("views.kv.start", nil)),
		Sizes: caption(""), Live: widget.NewLabel(""), Totals: caption(""),
		Hover: widget.NewLabel(tr("views.kv.hover", nil)),
		Keys:  NewHeatmap(3, 6), Values: NewHeatmap(3, 6),
	}
	p.Layer = widget.NewSelect(nil, func(string) { p.choose() })
	p.KVHead = widget.NewSelect(nil, func(string) { p.choose() })
	p.holder = p.Layer.PlaceHolder
	for _, h := range []*Heatmap{p.Keys, p.Values} {
		h.Gapless = true
		h.OnHover = p.hover(h)
	}
	p.Read = caption(tr("views.kv.read", nil))
	maps := container.NewGridWithColumns(2,
		container.NewBorder(widget.NewLabel(tr("views.kv.keys", nil)), nil, nil, nil, p.Keys),
		container.NewBorder(widget.NewLabel(tr("views.kv.values", nil)), nil, nil, nil, p.Values))
	top := container.NewHBox(widget.NewLabel(tr("views.mlp.layer", nil)), p.Layer, widget.NewLabel(tr("views.kv.kvhead", nil)), p.KVHead, layout.NewSpacer(),
		widget.NewButton(tr("views.export.png", nil), func() { p.export("png") }), widget.NewButton(tr("views.export.svg", nil), func() { p.export("svg") }),
		widget.NewButton(tr("views.export.csv", nil), func() { p.export("csv") }))
	p.box = container.NewBorder(top, p.Read, nil, nil,
		NewRowScroll(container.NewVBox(p.Title, p.Sizes, p.Live, p.Totals, maps, p.Hover)))
	p.ExtendBaseWidget(p)
	return p
}

func (p *KVCachePanel) export(f string) {
	if p.OnExport != nil {
		p.OnExport(f)
	}
}

// Compact hides the per-token sizes, the live size and the totals at
// 512, 4,096 and 32,000 tokens, and shortens how to read the maps, so
// that in projector mode the maps themselves are above the fold.
func (p *KVCachePanel) Compact(on bool) {
	p.compact = on
	read := "views.kv.read"
	if on {
		read = "views.kv.read_short"
	}
	p.Read.SetText(tr(read, nil))
	// A select is as wide as its placeholder: fyne's "(Select one)" made
	// the row of selects and export buttons wider than the window beside
	// the card in French; a dash as wide as a layer number is enough.
	holder := p.holder
	if on {
		holder = compactHolder
	}
	p.Layer.PlaceHolder, p.KVHead.PlaceHolder = holder, holder
	p.Layer.Refresh()
	p.KVHead.Refresh()
	for _, l := range []*widget.Label{p.Sizes, p.Live, p.Totals} {
		if on {
			l.Hide()
		} else {
			l.Show()
		}
	}
	p.Display(p.tokens, p.kv) // the rows' height
	p.Refresh()
}

// CreateRenderer implements fyne.Widget.
func (p *KVCachePanel) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(p.box) }

// Chosen is the layer and KV head selected (indices from 0).
func (p *KVCachePanel) Chosen() (layer, kvHead int) {
	return max(0, p.Layer.SelectedIndex()), max(0, p.KVHead.SelectedIndex())
}

func (p *KVCachePanel) choose() {
	if !p.quiet && p.OnChoose != nil {
		l, g := p.Chosen()
		p.OnChoose(l, g)
	}
}

// SetModel fills the selects for info (layer 19 and K/V head 1, counted
// from 1, as the article, when the model has them) and the sizes.
func (p *KVCachePanel) SetModel(info trace.ModelInfo) {
	p.info = info
	p.quiet = true
	defer func() { p.quiet = false }()
	layers, heads := names(info.Layers, p.count.Numbering), names(info.KVHeads, p.count.Numbering)
	if len(p.Layer.Options) != len(layers) || len(layers) > 0 && p.Layer.Options[0] != layers[0] {
		sel := p.Layer.SelectedIndex()
		p.Layer.Options = layers
		if sel < 0 || sel >= len(layers) {
			sel = min(18, len(layers)-1) // the article's layer 19
		}
		p.Layer.SetSelectedIndex(sel)
	}
	if len(p.KVHead.Options) != len(heads) || len(heads) > 0 && p.KVHead.Options[0] != heads[0] {
		sel := max(0, p.KVHead.SelectedIndex())
		p.KVHead.Options = heads
		p.KVHead.SetSelectedIndex(min(sel, len(heads)-1))
	}
	s := stats.KVSizesOf(info)
	kvLayers := 0 // a hybrid's Gated DeltaNet layers keep no keys and values
	for l := range info.Layers {
		if info.HasAttention(l) {
			kvLayers++
		}
	}
	p.Sizes.SetText(tr("views.kv.sizes", i18n.Args{"Layers": kvLayers, "KVHeads": info.KVHeads, "Dim": info.HeadDim,
		"N": thousands(s.Numbers), "F32": nums().Bytes(float64(s.BytesF32)), "BF": nums().Bytes(float64(s.BytesBF))}))
	var lines []string
	for _, n := range kvTotalsAt(info.MaxPositions) {
		line := KVCostLine(info, n)
		switch {
		case n == info.MaxPositions:
			line += tr("views.kv.max_ctx", nil)
		case info.MaxPositions > 0 && n > info.MaxPositions:
			line += tr("views.kv.beyond", nil)
		}
		lines = append(lines, line)
	}
	p.Totals.SetText(joinLines(lines))
}

// kvTotalsAt are the lengths the totals are given at: 4,096, 32,000 and
// the model's maximum context, in order, once each.
func kvTotalsAt(maxCtx int) []int {
	at := []int{4096, 32000}
	if maxCtx > 0 && maxCtx != 4096 && maxCtx != 32000 {
		at = append(at, maxCtx)
	}
	slices.Sort(at)
	return at
}

func names(n int, count format.Numbering) []string {
	out := make([]string, max(0, n))
	for i := range out {
		out[i] = count.Index(i)
	}
	return out
}

func joinLines(ls []string) string {
	s := ""
	for i, l := range ls {
		if i > 0 {
			s += "\n"
		}
		s += "• " + l
	}
	return s
}

// SetLive says how much of the cache the current sequence uses.
func (p *KVCachePanel) SetLive(tokens int, running bool) {
	s := stats.KVSizesOf(p.info)
	key := "views.kv.live"
	if running {
		key = "views.kv.live_so_far"
	}
	p.Live.SetText(Lang.N(key, tokens, i18n.Args{"N": thousands(tokens), "Bytes": nums().Bytes(float64(s.BytesF32) * float64(tokens))}))
}

// Display shows the rows of one layer and KV head; tokens name them.
func (p *KVCachePanel) Display(tokens []trace.Token, kv trace.KVRows) {
	p.tokens, p.kv = tokens, kv
	n := len(kv.Keys)
	if n == 0 {
		p.Title.SetText(tr("views.kv.none", nil))
		p.Keys.SetValues(nil)
		p.Values.SetValues(nil)
		return
	}
	p.Title.SetText(Lang.N("views.kv.title", n, i18n.Args{"Layer": p.count.Layer(kv.Layer), "KVHead": p.count.KVHead(kv.KVHead),
		"N": thousands(n), "Dim": len(kv.Keys[0]), "Last": n - 1}))
	var kr, vr [][]float64
	kr, p.starts = stats.PoolRows(kv.Keys, maxKVRows)
	vr, _ = stats.PoolRows(kv.Values, maxKVRows)
	rowH := clampF(p.mapHeight()/float32(len(kr)), 1, 16)
	for _, m := range []struct {
		h    *Heatmap
		rows [][]float64
	}{{p.Keys, kr}, {p.Values, vr}} {
		m.h.cell = fyne.NewSize(3, rowH)
		m.h.Color = divergingColors(m.rows)
		m.h.SetValues(m.rows)
	}
}

// compactHolder is the selects' placeholder in projector mode: about as
// wide as a three-digit layer number.
const compactHolder = "  —  "

// mapHeight is the most a map's rows take, in pixels: less in projector
// mode, where type is 1.5 × larger and the maps must fit under the title.
func (p *KVCachePanel) mapHeight() float32 {
	if p.compact {
		return 300
	}
	return 420
}

// divergingColors maps ±max|x| of rows onto purple–white–orange.
func divergingColors(rows [][]float64) func(float64) color.NRGBA {
	lim := 0.0
	for _, r := range rows {
		for _, v := range r {
			if !math.IsNaN(v) {
				lim = math.Max(lim, math.Abs(v))
			}
		}
	}
	if lim == 0 {
		lim = 1
	}
	ramp := viz.PurpleOrange(256)
	return func(v float64) color.NRGBA {
		if math.IsNaN(v) {
			return color.NRGBA{128, 128, 128, 255}
		}
		r, g, b, a := ramp.At((v/lim + 1) / 2).RGBA()
		return color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
	}
}

func (p *KVCachePanel) hover(h *Heatmap) func(row, col int, v float64) {
	return func(row, col int, v float64) {
		if row < 0 || row >= len(p.starts) {
			return
		}
		what := tr("views.kv.key", nil)
		if h == p.Values {
			what = tr("views.kv.value", nil)
		}
		lo := p.starts[row]
		hi := len(p.kv.Keys) - 1
		if row+1 < len(p.starts) {
			hi = p.starts[row+1] - 1
		}
		who := tr("views.kv.hover_token", i18n.Args{"Pos": lo, "Text": clip(Shown(p.text(lo)), 16)})
		if hi > lo {
			who = tr("views.kv.hover_tokens", i18n.Args{"Lo": lo, "Hi": hi})
		}
		p.Hover.SetText(tr("views.kv.hover_cell", i18n.Args{"Who": who, "What": what, "Col": col, "V": nums().Fixed(float64(v), 4)}))
	}
}

func (p *KVCachePanel) text(pos int) string {
	if pos >= 0 && pos < len(p.tokens) {
		return p.tokens[pos].Text
	}
	return "?"
}

// Rows are the keys and values shown.
func (p *KVCachePanel) Rows() trace.KVRows { return p.kv }

// Figure is the exported figure: both maps with their scales.
func (p *KVCachePanel) Figure() viz.Figure {
	if len(p.kv.Keys) == 0 {
		return orNothing(nil, p.FigureTheme)
	}
	texts := make([]string, len(p.kv.Keys))
	for i := range texts {
		texts[i] = p.text(i)
	}
	return viz.KVCache(p.kv.Keys, p.kv.Values, texts, figTheme(p.FigureTheme))
}

// CSV writes the cached keys (after RoPE) and values of every position.
func (p *KVCachePanel) CSV(d *CSV) error {
	kv := p.kv
	if len(kv.Keys) == 0 {
		return errors.New("no keys and values shown yet: generate, then wait for the run to end")
	}
	d.KV("layer", kv.Layer+p.count.Base())
	d.KV("kv head", kv.KVHead+p.count.Base())
	d.KV("keys", "after RoPE")
	dim := len(kv.Keys[0])
	head := []any{"position", "token"}
	for i := range dim {
		head = append(head, fmt.Sprintf("key_%d", i))
	}
	for i := range dim {
		head = append(head, fmt.Sprintf("value_%d", i))
	}
	d.Row(head...)
	for pos := range kv.Keys {
		rec := []any{pos, tokenText(p.tokens, pos)}
		for _, x := range kv.Keys[pos] {
			rec = append(rec, x)
		}
		for _, x := range kv.Values[pos] {
			rec = append(rec, x)
		}
		d.Row(rec...)
	}
	return nil
}

// Tab is the tab's title.
func (p *KVCachePanel) Tab() string { return tr("views.tab.kv-cache", nil) }

// Name is the panel's name for exports and --tab.
func (p *KVCachePanel) Name() string { return "kv-cache" }

// Object is what the tab holds.
func (p *KVCachePanel) Object() fyne.CanvasObject { return p }

// ShowView draws the selection of v.
func (p *KVCachePanel) ShowView(v session.View) {
	if _, ok := tokenAt(v); !ok {
		return
	}
	p.SetModel(v.Info)
	p.SetLive(max(0, len(v.Tokens)-1), v.Running)
	l, g := p.Chosen()
	switch {
	case v.Running:
		p.Display(v.Tokens, trace.KVRows{})
		p.Title.SetText(tr("views.kv.busy", nil))
	case v.Inspected.HasRows(v.Run, l, g):
		p.Display(v.Tokens, v.Inspected.Rows)
	}
	// Otherwise the app reads the rows (one job beside the window) and
	// shows them when they arrive.
}

// Parts are the objects the panel lays out.
func (p *KVCachePanel) Parts() []fyne.CanvasObject { return parts(p.box) }

var (
	_ Panel     = (*KVCachePanel)(nil)
	_ Compacter = (*KVCachePanel)(nil)
)
