// Package views holds Loupe's Fyne widgets, one panel per file, and the
// sentences and dialogs they show. Everything here runs on the UI
// goroutine; the app package feeds it plain trace data. The numbers a panel
// shows come from loupe/trace/stats and are written by loupe/format, as in
// the exported figures (loupe/viz); each panel exports itself (Exporter,
// export.go).
//
// "The article" in this package's comments is “The two times of an answer”,
// the article and video about the Herbert inference engine whose figures
// Loupe's panels follow (README.md).
package views

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"loupe/i18n"
	"loupe/trace"
)

// TokenStream shows the prompt and generated tokens as chips that wrap like
// text. Only the visible rows are built: a widget.List holds one row of chips
// per line, so a 3,139-token prompt costs a few dozen rows of widgets.
type TokenStream struct {
	widget.BaseWidget

	OnSelect func(pos int) // left click: the query token of the panels
	OnSource func(pos int) // right or Shift+click: the source token of the grid

	tokens   []trace.Token
	widths   []float32 // chip width per token
	measured chipWidths
	rows     [][2]int // [first, end) token index per line
	width    float32  // width the rows were flowed for
	selected int
	source   int
	focus    bool // dim every chip but the query and the source (the lesson)
	// hideWritten draws the written tokens as empty chips: while the class
	// guesses the next word, the strip must not show it.
	hideWritten bool
	// flowSize is the text size the widths were measured at; templateH
	// the row height the list took from its first row, at the theme of
	// that moment; tall says rows were given another height since.
	flowSize  float32
	templateH float32
	tall      bool
	// probs colours written token i by the model's p of it (nil: off;
	// SetConfidence), explained by legend.
	probs  []float64
	legend *confidenceLegend

	list  *widget.List
	hover *widget.Label
	below *fyne.Container // the legend's chips and the hover line, one line
	tip   *tooltip
}

// NewTokenStream makes an empty stream.
func NewTokenStream() *TokenStream {
	t := &TokenStream{selected: -1, source: -1, legend: newConfidenceLegend()}
	t.hover = widget.NewLabel(tr("views.tokens.hint", nil))
	t.hover.Truncation = fyne.TextTruncateEllipsis
	t.list = widget.NewList(
		func() int { return len(t.rows) },
		func() fyne.CanvasObject {
			if t.templateH == 0 {
				t.templateH = chipHeight()
			}
			return newChipRow(t)
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			r := o.(*chipRow)
			r.row = id
			r.Refresh()
		})
	t.list.HideSeparators = true
	t.ExtendBaseWidget(t)
	return t
}

// CreateRenderer implements fyne.Widget.
func (t *TokenStream) CreateRenderer() fyne.WidgetRenderer {
	t.tip = newTooltip()
	t.below = container.NewBorder(nil, nil, t.legend.box, nil, t.hover)
	return &streamRenderer{t: t, box: container.NewBorder(nil, t.below, nil, nil, t.list)}
}

// SetTokens replaces every token.
func (t *TokenStream) SetTokens(toks []trace.Token) {
	t.tokens = append(t.tokens[:0], toks...)
	t.widths = t.widths[:0]
	for _, tok := range t.tokens {
		t.widths = append(t.widths, t.measured.of(tok.Text))
	}
	if t.selected >= len(t.tokens) {
		t.selected = -1
	}
	if t.source >= len(t.tokens) {
		t.source = -1
	}
	t.reflow()
	t.list.Refresh()
	// The hover line and the tip described a token of the old list: after
	// a branch they named the token it replaced.
	t.hideTip()
	t.restoreHover()
}

// Append adds one token at the end and scrolls to it.
func (t *TokenStream) Append(tok trace.Token) {
	t.tokens = append(t.tokens, tok)
	t.widths = append(t.widths, t.measured.of(tok.Text))
	n := len(t.tokens)
	if len(t.rows) > 0 && t.rowWidth(t.rows[len(t.rows)-1])+t.widths[n-1] <= t.avail() {
		t.rows[len(t.rows)-1][1] = n
		t.list.RefreshItem(len(t.rows) - 1)
	} else {
		t.rows = append(t.rows, [2]int{n - 1, n})
		t.sizeRows(len(t.rows) - 1)
		t.list.Refresh()
	}
	t.list.ScrollToBottom()
}

// Tokens returns the tokens shown (do not modify).
func (t *TokenStream) Tokens() []trace.Token { return t.tokens }

// Selected is the query position, -1 when none.
func (t *TokenStream) Selected() int { return t.selected }

// Source is the source position, -1 when none.
func (t *TokenStream) Source() int { return t.source }

// Rows is the number of wrapped lines (for tests).
func (t *TokenStream) Rows() int { return len(t.rows) }

// HoverText is the line under the stream describing the hovered token.
func (t *TokenStream) HoverText() string { return t.hover.Text }

// SetSelected marks pos as the query token without calling OnSelect.
func (t *TokenStream) SetSelected(pos int) {
	t.selected = pos
	t.list.Refresh()
	if r := t.rowOf(pos); r >= 0 {
		t.list.ScrollTo(r)
	}
}

// SetSource marks pos as the source token without calling OnSource,
// and scrolls its row into view, then the query's: both, where the strip
// shows enough rows. Scrolled to its end after a run, projector mode's
// two rows showed «a» and the written tokens, not «cat» the chapter
// spoke of.
func (t *TokenStream) SetSource(pos int) {
	t.source = pos
	t.list.Refresh()
	for _, p := range []int{pos, t.selected} {
		if r := t.rowOf(p); r >= 0 {
			t.list.ScrollTo(r)
		}
	}
}

// SetFocus dims every token but the query and the source when on: a lesson
// chapter points the class at those two.
func (t *TokenStream) SetFocus(on bool) {
	if t.focus != on {
		t.focus = on
		t.list.Refresh()
	}
}

// Focused reports whether the stream dims all but the query and source.
func (t *TokenStream) Focused() bool { return t.focus }

// SetHideWritten hides (true) or shows the written tokens' text.
func (t *TokenStream) SetHideWritten(on bool) {
	if on != t.hideWritten {
		t.hideWritten = on
		t.list.Refresh()
	}
}

// SetHoverLine shows (true) or hides the line under the chips that
// says how to use them and, on hover, a token's id: projector mode gives
// its height to two whole rows of larger chips.
func (t *TokenStream) SetHoverLine(on bool) {
	if on {
		t.hover.Show()
	} else {
		t.hover.Hide()
	}
	t.Refresh()
}

// HidesWritten reports whether the written tokens are hidden.
func (t *TokenStream) HidesWritten() bool { return t.hideWritten }

// Select marks pos as the query and reports it, as a click would.
func (t *TokenStream) Select(pos int) {
	t.SetSelected(pos)
	if t.OnSelect != nil {
		t.OnSelect(pos)
	}
}

// Choose marks pos as the source and reports it, as a right click would.
func (t *TokenStream) Choose(pos int) {
	t.SetSource(pos)
	if t.OnSource != nil {
		t.OnSource(pos)
	}
}

// Describe is the hover text of one token: position, id and visible piece.
func Describe(tok trace.Token) string {
	kind := tr("views.tok.prompt", nil)
	if tok.Generated {
		kind = tr("views.tok.generated", nil)
	}
	if tok.Special {
		kind += tr("views.tok.special", nil)
	}
	if tok.Thinking {
		kind += tr("views.tok.thinking", nil)
	}
	return tr("views.tok.describe", i18n.Args{"Pos": tok.Pos, "ID": tok.ID, "Text": Shown(tok.Text), "Kind": kind})
}

// showHover describes token i under the stream and in a tooltip below
// its chip; at is the chip's top-left corner in the row r.
func (t *TokenStream) showHover(i int, r *chipRow, at fyne.Position) {
	if i < 0 || i >= len(t.tokens) {
		t.hideTip()
		return
	}
	text := Describe(t.tokens[i])
	if i < len(t.probs) && t.probs[i] > 0 {
		text += tr("views.tok.model_p", i18n.Args{"P": nums().Percent(t.probs[i])})
	}
	t.hover.SetText(text)
	if t.tip == nil {
		return
	}
	d := fyne.CurrentApp().Driver()
	pos := d.AbsolutePositionForObject(r).Subtract(d.AbsolutePositionForObject(t)).Add(at)
	pos.Y += chipHeight() + 2
	t.tip.show(text, pos, t.Size())
}

func (t *TokenStream) hideTip() {
	if t.tip != nil {
		t.tip.Hide()
	}
}

// tooltip is a label on a panel drawn over the stream. It holds no
// interactive object, so the chips under it still get the mouse.
type tooltip struct {
	*fyne.Container
	bg   *canvas.Rectangle
	text *canvas.Text
}

func newTooltip() *tooltip {
	bg := canvas.NewRectangle(color.Transparent)
	bg.StrokeWidth = 1
	bg.CornerRadius = 4
	txt := canvas.NewText("", color.White)
	tip := &tooltip{Container: container.NewWithoutLayout(bg, txt), bg: bg, text: txt}
	tip.Hide()
	return tip
}

// recolor follows the current theme (it may change while the window is open).
func (tp *tooltip) recolor() {
	th := theme.Current()
	v := fyne.CurrentApp().Settings().ThemeVariant() // the theme may fix its own
	tp.bg.FillColor = th.Color(theme.ColorNameOverlayBackground, v)
	tp.bg.StrokeColor = th.Color(theme.ColorNamePrimary, v)
	tp.text.Color = th.Color(theme.ColorNameForeground, v)
}

// show places the tip at pos, kept inside area.
func (tp *tooltip) show(text string, pos fyne.Position, area fyne.Size) {
	tp.text.Text = text
	tp.recolor()
	ts := fyne.MeasureText(text, theme.TextSize(), fyne.TextStyle{})
	size := fyne.NewSize(ts.Width+16, ts.Height+10)
	pos.X = max(0, min(pos.X, area.Width-size.Width))
	if pos.Y+size.Height > area.Height {
		pos.Y -= size.Height + chipHeight() + 4 // above the chip
	}
	tp.bg.Resize(size)
	tp.text.Move(fyne.NewPos(8, 5))
	tp.text.Resize(ts)
	tp.Move(pos)
	tp.Resize(size)
	tp.Show()
	tp.Refresh()
}

func (t *TokenStream) avail() float32 {
	w := t.width - 2*theme.Padding() - 12 // room for the scroll bar
	if w < 80 {
		w = 80
	}
	return w
}

func (t *TokenStream) rowWidth(r [2]int) float32 {
	var w float32
	for i := r[0]; i < r[1]; i++ {
		w += t.widths[i]
	}
	return w
}

// reflow packs the chips into lines no wider than the stream.
func (t *TokenStream) reflow() {
	if size := chipTextSize(); size != t.flowSize {
		// Another theme (projector mode's larger type): the chips kept
		// their old widths and overlapped.
		t.flowSize = size
		t.widths = t.widths[:0]
		for _, tok := range t.tokens {
			t.widths = append(t.widths, t.measured.of(tok.Text))
		}
	}
	defer t.sizeRows(0)
	t.rows = t.rows[:0]
	avail := t.avail()
	start, w := 0, float32(0)
	for i, cw := range t.widths {
		if i > start && w+cw > avail {
			t.rows = append(t.rows, [2]int{start, i})
			start, w = i, 0
		}
		w += cw
	}
	if start < len(t.widths) {
		t.rows = append(t.rows, [2]int{start, len(t.widths)})
	}
}

// sizeRows gives rows from on the chips' height at the current text
// size where it is not the list's first row's: the list keeps that one
// for every row, and projector mode's rows overlapped and were cut.
func (t *TokenStream) sizeRows(from int) {
	h := chipHeight()
	if t.templateH == 0 || (h == t.templateH && !t.tall) {
		return
	}
	t.tall = h != t.templateH
	for id := from; id < len(t.rows); id++ {
		t.list.SetItemHeight(id, h)
	}
}

func (t *TokenStream) rowOf(pos int) int {
	for r, span := range t.rows {
		if pos >= span[0] && pos < span[1] {
			return r
		}
	}
	return -1
}

type streamRenderer struct {
	t   *TokenStream
	box *fyne.Container
}

func (r *streamRenderer) Layout(s fyne.Size) {
	r.box.Resize(s)
	if s.Width != r.t.width {
		r.t.width = s.Width
		r.t.reflow()
		r.t.list.Refresh()
	}
}

// MinSize holds two whole rows of chips at the current text size above
// the line of the legend and the hover text: in projector mode a fixed
// 120 pixels showed a row and a half, and without the line it is the
// two rows alone.
func (r *streamRenderer) MinSize() fyne.Size {
	rows := 2 * (chipHeight() + theme.Padding() + 2)
	if !r.t.hover.Visible() && !r.t.legend.box.Visible() {
		return fyne.NewSize(200, rows) // projector mode: the panels below need every pixel
	}
	return fyne.NewSize(200, max(120, rows+r.t.below.MinSize().Height))
}
func (r *streamRenderer) Refresh() {
	if chipTextSize() != r.t.flowSize { // a theme change
		r.t.reflow()
		r.t.list.Refresh()
	}
	r.box.Refresh()
}
func (r *streamRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.box, r.t.tip.Container}
}
func (r *streamRenderer) Destroy() {}

const chipPad = 6

func chipTextSize() float32 { return theme.TextSize() }

func chipWidth(piece string) float32 {
	return fyne.MeasureText(Shown(piece), chipTextSize(), fyne.TextStyle{Monospace: true}).Width + 2*chipPad + 3
}

// chipWidths remembers chipWidth by piece at one text size: a long prompt
// repeats its pieces (the 3,139-token Gold-Bug passage has 938 distinct
// ones), and measuring text is most of what appending a chip costs.
type chipWidths struct {
	size  float32
	width map[string]float32
}

func (c *chipWidths) of(piece string) float32 {
	if size := chipTextSize(); c.width == nil || c.size != size {
		c.size, c.width = size, map[string]float32{}
	}
	w, ok := c.width[piece]
	if !ok {
		w = chipWidth(piece)
		c.width[piece] = w
	}
	return w
}

func chipHeight() float32 { return chipTextSize() + 2*chipPad + 4 }

// chipRow draws one line of chips and maps the mouse to a token.
type chipRow struct {
	widget.BaseWidget
	t     *TokenStream
	row   int
	shift bool // Shift held at the last mouse down
}

func newChipRow(t *TokenStream) *chipRow {
	r := &chipRow{t: t, row: -1}
	r.ExtendBaseWidget(r)
	return r
}

func (r *chipRow) span() [2]int {
	if r.row < 0 || r.row >= len(r.t.rows) {
		return [2]int{0, 0}
	}
	return r.t.rows[r.row]
}

// tokenAt returns the token index under x, -1 when none.
func (r *chipRow) tokenAt(x float32) int {
	s := r.span()
	var left float32 = theme.Padding()
	for i := s[0]; i < s[1]; i++ {
		if x >= left && x < left+r.t.widths[i] {
			return i
		}
		left += r.t.widths[i]
	}
	return -1
}

func (r *chipRow) Tapped(e *fyne.PointEvent) {
	i := r.tokenAt(e.Position.X)
	if i < 0 {
		return
	}
	if r.shift {
		r.t.Choose(i)
		return
	}
	r.t.Select(i)
}

func (r *chipRow) TappedSecondary(e *fyne.PointEvent) {
	if i := r.tokenAt(e.Position.X); i >= 0 {
		r.t.Choose(i)
	}
}

func (r *chipRow) MouseDown(e *desktop.MouseEvent) {
	r.shift = e.Modifier&fyne.KeyModifierShift != 0
}
func (r *chipRow) MouseUp(*desktop.MouseEvent)      {}
func (r *chipRow) MouseIn(e *desktop.MouseEvent)    { r.hover(e.Position.X) }
func (r *chipRow) MouseMoved(e *desktop.MouseEvent) { r.hover(e.Position.X) }
func (r *chipRow) MouseOut()                        { r.t.hideTip(); r.t.restoreHover() }

func (r *chipRow) hover(x float32) {
	i := r.tokenAt(x)
	left := theme.Padding()
	for k := r.span()[0]; k < i; k++ {
		left += r.t.widths[k]
	}
	r.t.showHover(i, r, fyne.NewPos(left, 0))
}
func (r *chipRow) MinSize() fyne.Size                  { return fyne.NewSize(50, chipHeight()) }
func (r *chipRow) CreateRenderer() fyne.WidgetRenderer { return &chipRowRenderer{r: r} }

type chipRowRenderer struct {
	r     *chipRow
	rects []*canvas.Rectangle
	texts []*canvas.Text
	objs  []fyne.CanvasObject
}

// chipColors gives fill, stroke and text colours: prompt tokens are outlined,
// generated ones filled with the primary colour; the query and source get a
// thick border in the primary and warning colours.
func (r *chipRowRenderer) chipColors(tok trace.Token, i int) (fill, stroke, text color.Color, width float32) {
	th := r.r.Theme()
	v := fyne.CurrentApp().Settings().ThemeVariant() // the theme may fix its own
	fill = th.Color(theme.ColorNameInputBackground, v)
	stroke = th.Color(theme.ColorNameSeparator, v)
	text = th.Color(theme.ColorNameForeground, v)
	width = 1
	if tok.Generated {
		fill = withAlpha(th.Color(theme.ColorNamePrimary, v), 0x60)
		stroke = th.Color(theme.ColorNamePrimary, v)
		if ps := r.r.t.probs; i < len(ps) && ps[i] > 0 {
			fill = confidenceFill(ps[i])
		}
	}
	fill, stroke, text = chatColors(th, v, tok, fill, stroke, text)
	switch i {
	case r.r.t.selected:
		stroke, width = th.Color(theme.ColorNameForeground, v), 3
	case r.r.t.source:
		stroke, width = th.Color(theme.ColorNameWarning, v), 3
	default:
		if r.r.t.focus {
			fill, stroke, text = dim(fill), dim(stroke), dim(text)
		}
	}
	return
}

// dim makes a colour a quarter as opaque: a token the lesson does not
// point at stays readable up close but steps back on a projector.
func dim(c color.Color) color.Color {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	n.A /= 4
	return n
}

func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), a}
}

func (r *chipRowRenderer) ensure(n int) {
	for len(r.rects) < n {
		rect := canvas.NewRectangle(color.Transparent)
		rect.CornerRadius = 4
		txt := canvas.NewText("", color.White)
		txt.TextStyle = fyne.TextStyle{Monospace: true}
		r.rects = append(r.rects, rect)
		r.texts = append(r.texts, txt)
	}
	r.objs = r.objs[:0]
	for i := range n {
		r.objs = append(r.objs, r.rects[i], r.texts[i])
	}
}

func (r *chipRowRenderer) Layout(fyne.Size) { r.Refresh() }

func (r *chipRowRenderer) Refresh() {
	s := r.r.span()
	t := r.r.t
	r.ensure(s[1] - s[0])
	x := theme.Padding()
	h := chipHeight()
	for k := range s[1] - s[0] {
		i := s[0] + k
		tok := t.tokens[i]
		fill, stroke, fg, sw := r.chipColors(tok, i)
		rect, txt := r.rects[k], r.texts[k]
		// Move and Resize redraw what they change; the colours and the
		// text are redrawn only when they change too. Layout comes here
		// on every paint of a row: refreshing what did not change would
		// ask for one more frame each time (and a new text texture).
		if rect.FillColor != fill || rect.StrokeColor != stroke || rect.StrokeWidth != sw {
			rect.FillColor, rect.StrokeColor, rect.StrokeWidth = fill, stroke, sw
			rect.Refresh()
		}
		rect.Move(fyne.NewPos(x, 1))
		rect.Resize(fyne.NewSize(t.widths[i]-3, h-2))
		text, style := Shown(tok.Text), fyne.TextStyle{Monospace: true, Bold: tok.Special, Italic: tok.Thinking && !tok.Special}
		if tok.Generated && t.hideWritten {
			text = ""
		}
		if txt.Text != text || txt.Color != fg || txt.TextSize != chipTextSize() || txt.TextStyle != style {
			txt.Text, txt.Color, txt.TextSize, txt.TextStyle = text, fg, chipTextSize(), style
			txt.Refresh()
		}
		txt.Move(fyne.NewPos(x+chipPad, chipPad))
		txt.Resize(fyne.NewSize(t.widths[i]-2*chipPad, h-2*chipPad))
		x += t.widths[i]
	}
}

func (r *chipRowRenderer) MinSize() fyne.Size           { return fyne.NewSize(50, chipHeight()) }
func (r *chipRowRenderer) Objects() []fyne.CanvasObject { return r.objs }
func (r *chipRowRenderer) Destroy()                     {}
