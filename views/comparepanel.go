package views

import (
	"errors"
	"fmt"
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"loupe/format"
	"loupe/i18n"
	"loupe/session"
	"loupe/trace"
	"loupe/trace/stats"
	"loupe/viz"
)

// ComparePanel puts two runs side by side: run A | run B, both token
// streams with the first divergence marked, the chosen token's probability
// at one step in A and in B (Δp), both top-10 lists, the timing of both,
// and the attention grids of A, of B and their difference.
type ComparePanel struct {
	widget.BaseWidget
	panelBase                // counting, theme, export buttons (SetCount, SetTheme, SetOnExport)
	OnPick    func(a, b int) // the user chose other runs of the history
	OnStep    func(posA int) // the step buttons moved the compared step

	Title, Kind, AlignNote, StepLine, GridNote, Hover *widget.Label
	DeltaLine                                         *widget.RichText // the Δp sentence, as a heading
	SelA, SelB                                        *widget.Select
	StreamA, StreamB                                  *widget.RichText
	TopA, TopB, Times                                 *Bars
	GridA, GridB, GridD                               *Heatmap
	GridScale                                         *widget.Label
	axes                                              []*Axes // numbered layers and heads around the grids

	cmp     Comparison
	has     bool
	at      session.Compared // where cmp was computed
	labels  []string
	picking bool // SetRuns is setting the selects: no OnPick
	content *fyne.Container
	grids   *fyne.Container
	scroll  *container.Scroll // of content: back to the top for a new pair
}

// NewComparePanel makes an empty panel.
func NewComparePanel() *ComparePanel {
	p := &ComparePanel{}
	p.Title = boldLabel(tr("app.compare.nothing", nil))
	p.Kind, p.AlignNote, p.StepLine = wrapLabel(""), wrapLabel(""), wrapLabel("")
	p.DeltaLine = widget.NewRichText()
	p.GridNote, p.Hover = wrapLabel(""), wrapLabel("")
	p.GridScale = widget.NewLabel("")
	p.SelA = widget.NewSelect(nil, func(string) { p.picked() })
	p.SelB = widget.NewSelect(nil, func(string) { p.picked() })
	p.SelA.PlaceHolder, p.SelB.PlaceHolder = tr("views.cmp.pick_a", nil), tr("views.cmp.pick_b", nil)
	p.StreamA, p.StreamB = widget.NewRichText(), widget.NewRichText()
	p.StreamA.Wrapping, p.StreamB.Wrapping = fyne.TextWrapWord, fyne.TextWrapWord
	p.TopA, p.TopB, p.Times = NewBars(), NewBars(), NewBars()
	p.TopA.LabelWidth, p.TopB.LabelWidth, p.Times.LabelWidth = 90, 90, 60
	p.Times.Colors = []fyne.ThemeColorName{theme.ColorNameWarning, theme.ColorNamePrimary}
	p.GridA, p.GridB, p.GridD = NewHeatmap(14, 12), NewHeatmap(14, 12), NewHeatmap(14, 12)
	for _, g := range []*Heatmap{p.GridA, p.GridB, p.GridD} {
		g.BottomUp = true
		g.OnHover = p.hoverCell
	}
	p.GridD.Color = format.Diverging
	p.axes = []*Axes{NewAxes(p.GridA, p.countIndex, p.countIndex), NewAxes(p.GridB, nil, p.countIndex), NewAxes(p.GridD, nil, p.countIndex)}
	p.axes[0].RowTitle = "layer"
	for _, a := range p.axes {
		a.ColTitle = "head"
	}
	p.content = container.NewVBox()
	p.ExtendBaseWidget(p)
	p.render()
	return p
}

func wrapLabel(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.Wrapping = fyne.TextWrapWord
	return l
}

// CreateRenderer implements fyne.Widget.
func (p *ComparePanel) CreateRenderer() fyne.WidgetRenderer {
	export := func(f string) func() {
		return func() {
			if p.OnExport != nil {
				p.OnExport(f)
			}
		}
	}
	prev := widget.NewButtonWithIcon(tr("views.cmp.step_button", nil), theme.NavigateBackIcon(), func() { p.move(-1) })
	next := widget.NewButtonWithIcon(tr("views.cmp.step_button", nil), theme.NavigateNextIcon(), func() { p.move(1) })
	next.IconPlacement = widget.ButtonIconTrailingText
	pick := container.NewGridWithColumns(2,
		container.NewBorder(nil, nil, widget.NewLabel("A"), nil, p.SelA),
		container.NewBorder(nil, nil, widget.NewLabel("B"), nil, p.SelB))
	top := container.NewBorder(nil, nil, nil, container.NewHBox(widget.NewButton(tr("views.cmp.swap", nil), p.swap), prev, next,
		widget.NewButton("PNG…", export("png")), widget.NewButton("CSV…", export("csv"))), pick)
	p.scroll = container.NewVScroll(p.content)
	return widget.NewSimpleRenderer(container.NewBorder(top, nil, nil, nil, p.scroll))
}

// SetRuns lists the runs of the history and selects A and B (-1: none).
func (p *ComparePanel) SetRuns(labels []string, a, b int) {
	p.picking = true
	defer func() { p.picking = false }()
	p.labels = labels
	p.SelA.SetOptions(labels)
	p.SelB.SetOptions(labels)
	if a >= 0 && a < len(labels) {
		p.SelA.SetSelectedIndex(a)
	}
	if b >= 0 && b < len(labels) {
		p.SelB.SetSelectedIndex(b)
	}
}

func (p *ComparePanel) picked() {
	if p.picking || p.OnPick == nil || p.SelA.SelectedIndex() < 0 || p.SelB.SelectedIndex() < 0 {
		return
	}
	p.OnPick(p.SelA.SelectedIndex(), p.SelB.SelectedIndex())
}

func (p *ComparePanel) swap() {
	a, b := p.SelA.SelectedIndex(), p.SelB.SelectedIndex()
	if a >= 0 && b >= 0 && p.OnPick != nil {
		p.OnPick(b, a)
	}
}

// move goes to the previous or next generated step of A.
func (p *ComparePanel) move(d int) {
	if !p.has || p.OnStep == nil {
		return
	}
	steps := p.cmp.Steps()
	for i, s := range steps {
		if s == p.cmp.Delta.Pos && i+d >= 0 && i+d < len(steps) {
			p.OnStep(steps[i+d])
			return
		}
	}
	if len(steps) > 0 && (p.cmp.Delta.Pos < steps[0] || p.cmp.Delta.Pos > steps[len(steps)-1]) {
		p.OnStep(steps[0])
	}
}

// Comparison is what the panel shows (for exports and tests).
func (p *ComparePanel) Comparison() (Comparison, bool) { return p.cmp, p.has }

// Clear empties the panel.
func (p *ComparePanel) Clear(msg string) {
	p.has = false
	p.Title.SetText(msg)
	p.render()
}

// Display shows a comparison; kind says in a sentence what B is to A.
// A new pair of runs scrolls the panel back to its headline (what B is
// and Δp); another step of the same pair keeps the place.
func (p *ComparePanel) Display(c Comparison, kind string) {
	pair := !p.has || c.A != p.cmp.A || c.B != p.cmp.B
	p.cmp, p.has = c, true
	p.Title.SetText(tr("views.cmp.title_ab", nil))
	p.Kind.SetText(kind)
	p.AlignNote.SetText(DescribeAlignment(c.Align, c.A.Tokens, c.B.Tokens))
	p.DeltaLine.Segments = []widget.RichTextSegment{&widget.TextSegment{Text: DeltaLine(c.Delta), Style: widget.RichTextStyleSubHeading}}
	p.DeltaLine.Refresh()
	p.StepLine.SetText(p.stepWords())
	p.streams()
	p.tops()
	p.times()
	p.showGrids()
	p.render()
	if pair && p.scroll != nil {
		p.scroll.ScrollToTop()
	}
}

// ScrolledTo is how far down the panel is scrolled.
func (p *ComparePanel) ScrolledTo() float32 {
	if p.scroll == nil {
		return 0
	}
	return p.scroll.Offset.Y
}

func (p *ComparePanel) stepWords() string {
	c := p.cmp
	first := tr("views.cmp.same_tokens", nil)
	if c.FirstA >= 0 {
		first = tr("views.cmp.first_divergence", i18n.Args{"Pos": c.FirstA, "Nth": ordinal(c.FirstA - stats.PromptLen(c.A) + 1)})
	}
	return tr("views.cmp.step", i18n.Args{"Pos": c.Delta.Pos, "First": first})
}

// ordinal is "3rd" in English, "3e" ("1er") in French.
func ordinal(n int) string {
	if Lang == i18n.French {
		return map[bool]string{true: "1er", false: fmt.Sprintf("%de", n)}[n == 1]
	}
	suf := "th"
	if n%100 < 11 || n%100 > 13 {
		suf = map[int]string{1: "st", 2: "nd", 3: "rd"}[n%10]
		if suf == "" {
			suf = "th"
		}
	}
	return fmt.Sprintf("%d%s", n, suf)
}

// streams writes both runs' tokens: the prompt plain, generated tokens in
// the accent colour, from the first divergence on in red, the compared
// step in brackets.
func (p *ComparePanel) streams() {
	c := p.cmp
	p.StreamA.Segments = streamSegments("A: ", c.A.Tokens, c.FirstA, c.Delta.Pos)
	p.StreamB.Segments = streamSegments("B: ", c.B.Tokens, c.FirstB, c.Delta.PosB)
	p.StreamA.Refresh()
	p.StreamB.Refresh()
}

func streamSegments(lead string, toks []trace.Token, first, step int) []widget.RichTextSegment {
	segs := []widget.RichTextSegment{&widget.TextSegment{Text: lead, Style: widget.RichTextStyle{Inline: true, TextStyle: fyne.TextStyle{Bold: true}}}}
	for i, t := range toks {
		st := widget.RichTextStyle{Inline: true}
		text := strings.ReplaceAll(t.Text, "\n", "¶ ")
		switch {
		case first >= 0 && i >= first:
			st.ColorName, st.TextStyle.Bold = theme.ColorNameError, true
		case t.Generated:
			st.ColorName = theme.ColorNamePrimary
		}
		if i == step {
			text = "⟦" + text + "⟧"
			st.TextStyle.Bold = true
		}
		segs = append(segs, &widget.TextSegment{Text: text, Style: st})
	}
	return segs
}

// tops lists both steps' candidates; B's list marks A's choice.
func (p *ComparePanel) tops() {
	d := p.cmp.Delta
	list := func(s trace.Step, ok bool, mark int) []Bar {
		if !ok {
			return []Bar{{Label: "—", Value: tr("views.cmp.no_step", nil)}}
		}
		bars := make([]Bar, 0, len(s.Top))
		for _, c := range s.Top {
			v := nums().Percent(c.P)
			if c.ID == mark && c.ID != s.Chosen.ID {
				v += tr("views.cmp.a_choice", nil)
			}
			bars = append(bars, Bar{Label: clip(Shown(c.Text), 14), Segments: []float64{c.P}, Value: v,
				Highlight: c.ID == s.Chosen.ID})
		}
		return bars
	}
	p.TopA.SetBars(list(d.StepA, d.HasA, -1))
	p.TopB.SetBars(list(d.StepB, d.HasB, d.Token.ID))
}

// times draws A's and B's reading and writing on one scale.
func (p *ComparePanel) times() {
	ta, tb := p.cmp.A.Timing, p.cmp.B.Timing
	longest := max(ta.PrefillSeconds+ta.DecodeSeconds, tb.PrefillSeconds+tb.DecodeSeconds, 1e-9)
	row := func(name string, t trace.Timing) Bar {
		return Bar{Label: name, Segments: []float64{t.PrefillSeconds / longest, t.DecodeSeconds / longest},
			Value: tr("views.cmp.times", i18n.Args{"Read": nums().Duration(t.PrefillSeconds), "Write": nums().Duration(t.DecodeSeconds), "Rate": nums().Fixed(stats.Rate(t.DecodeTokens, t.DecodeSeconds), 1)})}
	}
	p.Times.SetBars([]Bar{row("A", ta), row("B", tb)})
}

func (p *ComparePanel) showGrids() {
	c := p.cmp
	if !c.HasGrids {
		p.GridNote.SetText(c.GridNote)
		return
	}
	top := max(stats.ScaleMax(c.GridA), stats.ScaleMax(c.GridB))
	p.GridA.Max, p.GridB.Max = top, top
	d := max(stats.MaxAbs(c.Diff), 1e-6)
	p.GridD.Color = func(v float64) color.NRGBA { return format.Diverging(v / d) }
	rows, cols := len(c.GridA), len(c.GridA[0])
	cw, ch := clampF(130/float32(cols), 6, 20), clampF(220/float32(rows), 6, 24)
	for _, g := range []*Heatmap{p.GridA, p.GridB, p.GridD} {
		g.cell = fyne.NewSize(cw, ch)
	}
	p.GridA.SetValues(c.GridA)
	p.GridB.SetValues(c.GridB)
	p.GridA.SetSelected(headCells(c.A.Settings.Ablate))
	p.GridB.SetSelected(headCells(c.B.Settings.Ablate))
	p.GridD.SetValues(c.Diff)
	for _, a := range p.axes {
		a.Refresh()
	}
	p.GridNote.SetText(tr("views.cmp.grid_note", i18n.Args{"QA": tokName(c.A.Tokens, c.QueryA), "SA": tokName(c.A.Tokens, c.SourceA),
		"QB": tokName(c.B.Tokens, c.QueryB), "SB": tokName(c.B.Tokens, c.SourceB),
		"Base": p.count.Base(), "Top": nums().Percent(top), "D": nums().Fixed(100*d, 1)}))
	p.GridScale.SetText("0 … " + nums().Percent(top))
}

func tokName(toks []trace.Token, pos int) string {
	if pos < 0 || pos >= len(toks) {
		return "?"
	}
	return fmt.Sprintf("«%s» (%d)", clip(Shown(toks[pos].Text), 16), pos)
}

func (p *ComparePanel) hoverCell(l, h int, _ float64) {
	c := p.cmp
	if l < 0 || !c.HasGrids || l >= len(c.GridA) || h >= len(c.GridA[l]) {
		return
	}
	p.Hover.SetText(tr("views.cmp.hover", i18n.Args{"Cell": p.layerHead(l, h), "A": nums().Percent(c.GridA[l][h]),
		"B": nums().Percent(c.GridB[l][h]), "D": nums().Signed(100*c.Diff[l][h], 1)}))
}

// render lays the panel out: what B is, the Δp line, the two streams, the
// two top-10 lists, the times, the grids, each with a sentence on how to
// read it.
func (p *ComparePanel) render() {
	if !p.has {
		p.content.Objects = []fyne.CanvasObject{p.Title, wrapLabel(compareHowTo())}
		p.content.Refresh()
		return
	}
	caption := func(s string) *widget.Label {
		l := wrapLabel(s)
		l.Importance = widget.LowImportance
		return l
	}
	side := func(name string, b *Bars) fyne.CanvasObject {
		return container.NewVBox(boldLabel(name), b)
	}
	labelled := func(name string, o fyne.CanvasObject) fyne.CanvasObject {
		return container.NewVBox(widget.NewLabel(name), o)
	}
	// The grids go under the top-10 lists, not beside them: the three side
	// by side were 1,058 px wide and widened the window past the screen.
	row := container.NewHBox(side(tr("views.cmp.top_a", nil), p.TopA), side(tr("views.cmp.top_b", nil), p.TopB))
	objs := []fyne.CanvasObject{p.Kind, p.AlignNote, p.DeltaLine, p.StepLine,
		p.StreamA, p.StreamB,
		caption(tr("views.cmp.stream_caption", nil)),
		row,
		caption(tr("views.cmp.cand_caption", nil)),
	}
	if p.cmp.HasGrids {
		objs = append(objs, boldLabel(tr("views.cmp.attn_source", nil)),
			container.NewHBox(labelled("A", p.axes[0]), labelled("B", p.axes[1]), labelled("B − A", p.axes[2])), p.Hover)
	}
	objs = append(objs, p.GridNote)
	objs = append(objs, boldLabel(tr("views.tab.timing", nil)), p.Times,
		caption(tr("views.cmp.timing_caption", nil)))
	p.content.Objects = objs
	p.content.Refresh()
}

// compareHowTo says how to get two runs to compare.
func compareHowTo() string { return tr("views.cmp.howto", nil) }

func headCells(hs []trace.Head) [][2]int {
	out := make([][2]int, len(hs))
	for i, h := range hs {
		out[i] = [2]int{h.Layer, h.Head}
	}
	return out
}

// Figure: the Compare panel has none; a PNG is the panel as shown.
func (p *ComparePanel) Figure() viz.Figure { return nil }

// CSV writes the compared step of A and B and the three grids.
func (p *ComparePanel) CSV(d *CSV) error {
	c, ok := p.Comparison()
	if !ok {
		return errors.New("nothing compared yet")
	}
	d.KV("run A prompt", c.A.Prompt)
	d.KV("run B prompt", c.B.Prompt)
	d.KV("run A heads switched off (from 0)", trace.FormatHeads(c.A.Settings.Ablate, 0))
	d.KV("run B heads switched off (from 0)", trace.FormatHeads(c.B.Settings.Ablate, 0))
	d.KV("step position in A", c.Delta.Pos, c.Delta.Token.Text)
	d.KV("step position in B", c.Delta.PosB)
	d.KV("first divergence in A", c.FirstA)
	d.KV("query position in A", c.QueryA)
	d.KV("source position in A", c.SourceA)
	d.KV("query position in B", c.QueryB)
	d.KV("source position in B", c.SourceB)
	d.Row("table", "run", "rank_or_layer", "id_or_head", "text", "value")
	d.Row("delta", "A", "", c.Delta.Token.ID, c.Delta.Token.Text, c.Delta.Token.P)
	if c.Delta.InB {
		d.Row("delta", "B", "", c.Delta.Token.ID, c.Delta.Token.Text, c.Delta.PB)
	}
	for i, x := range c.Delta.StepA.Top {
		d.Row("top10", "A", i+1, x.ID, x.Text, x.P)
	}
	for i, x := range c.Delta.StepB.Top {
		d.Row("top10", "B", i+1, x.ID, x.Text, x.P)
	}
	if !c.HasGrids {
		return nil
	}
	b := p.count.Base()
	for _, g := range []struct {
		name string
		v    [][]float64
	}{{"A", c.GridA}, {"B", c.GridB}, {"B-A", c.Diff}} {
		for l, row := range g.v {
			for h, v := range row {
				d.Row("grid", g.name, l+b, h+b, "", v)
			}
		}
	}
	return nil
}

// Tab is the tab's title.
func (p *ComparePanel) Tab() string { return tr("views.tab.compare", nil) }

// Name is the panel's name for exports and --tab.
func (p *ComparePanel) Name() string { return "compare" }

// Object is what the tab holds.
func (p *ComparePanel) Object() fyne.CanvasObject { return p }

// ShowView draws the selection of v.
// The pair and the step compared are the View's (the step follows the
// selection, or ◀ ▶ when the run on screen does not line up with A).
// While a run goes on the same comparison is not computed again.
func (p *ComparePanel) ShowView(v session.View) {
	if v.A == nil || v.B == nil {
		p.at = session.Compared{}
		p.Clear(tr("app.compare.nothing", nil))
		return
	}
	if v.Running && p.has && p.cmp.A == v.A && p.cmp.B == v.B && p.at == v.Compared && p.Kind.Text == v.Kind {
		return
	}
	p.at = v.Compared
	p.Display(Compare(v.A, v.B, v.Compared.Pos, v.Compared.Query, v.Compared.Source), v.Kind)
}

// Parts are the objects the panel lays out.
func (p *ComparePanel) Parts() []fyne.CanvasObject { return parts(p.content) }

var _ Panel = (*ComparePanel)(nil)
