package views

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Placed is one object of the window as a layout report lists it: where
// it lies in window coordinates (Fyne units), whether it is drawn now and
// whether some of its content is not shown.
type Placed struct {
	Kind      string // text, token, card, button or figure
	Text      string
	Pos       fyne.Position
	Size      fyne.Size
	Visible   bool // drawn: every ancestor shown, and inside its scroll viewports and the window
	Clipped   bool // partly outside a viewport or the window, or its text cut or taller than its box
	Generated bool // a written token
	Under     fyne.CanvasObject
}

// rect is a box in window coordinates.
type rect struct{ x0, y0, x1, y1 float32 }

func (r rect) meet(o rect) rect {
	return rect{max(r.x0, o.x0), max(r.y0, o.y0), min(r.x1, o.x1), min(r.y1, o.y1)}
}

func (r rect) empty() bool { return r.x1-r.x0 < 1 || r.y1-r.y0 < 1 }

// holds reports whether o lies inside r (a pixel of slack for rounding).
func (r rect) holds(o rect) bool {
	return o.x0 >= r.x0-1 && o.y0 >= r.y0-1 && o.x1 <= r.x1+1 && o.y1 <= r.y1+1
}

// Layout walks the object tree under content laid out in a window of the
// given size and lists its texts, tokens, buttons, figures and the lesson
// card. Each object's Under is the deepest of roots above it (a panel, the
// token strip), so that the report can name its panel.
func Layout(content fyne.CanvasObject, size fyne.Size, roots []fyne.CanvasObject) []Placed {
	w := &layoutWalk{roots: map[fyne.CanvasObject]bool{}}
	for _, r := range roots {
		w.roots[r] = true
	}
	w.walk(content, fyne.Position{}, rect{0, 0, size.Width, size.Height}, true, nil)
	return w.out
}

type layoutWalk struct {
	roots map[fyne.CanvasObject]bool
	out   []Placed
}

// walk places o, whose parent's origin is at, inside the viewport clip.
func (w *layoutWalk) walk(o fyne.CanvasObject, at fyne.Position, clip rect, shown bool, under fyne.CanvasObject) {
	if o == nil {
		return
	}
	shown = shown && o.Visible()
	p := at.Add(o.Position())
	if w.roots[o] {
		under = o
	}
	if !shown && under == nil {
		return // outside every panel and hidden: nothing a report names
	}
	if w.leaf(o, p, clip, shown, under) {
		return
	}
	if _, ok := o.(fyne.Scrollable); ok {
		s := o.Size()
		clip = clip.meet(rect{p.X, p.Y, p.X + s.Width, p.Y + s.Height})
	}
	for _, c := range children(o) {
		w.walk(c, p, clip, shown, under)
	}
}

// children are the objects o draws: a container's, or its renderer's.
func children(o fyne.CanvasObject) []fyne.CanvasObject {
	switch c := o.(type) {
	case *fyne.Container:
		return c.Objects
	case fyne.Widget:
		if r := test.WidgetRenderer(c); r != nil {
			return r.Objects()
		}
	}
	return nil
}

// leaf places o when it is one of the kinds a report lists; true when its
// children are not to be walked.
func (w *layoutWalk) leaf(o fyne.CanvasObject, p fyne.Position, clip rect, shown bool, under fyne.CanvasObject) bool {
	s := o.Size()
	switch v := o.(type) {
	case *chipRow:
		w.tokens(v, p, clip, shown, under)
		return true
	case *widget.Label:
		w.label(v, p, clip, shown, under)
		return true
	case *widget.Button:
		w.add(Placed{Kind: "button", Text: v.Text, Clipped: v.MinSize().Width > s.Width+1}, p, s, clip, shown, under)
		return true
	case *widget.Check:
		w.add(Placed{Kind: "button", Text: v.Text, Clipped: v.MinSize().Width > s.Width+1}, p, s, clip, shown, under)
		return true
	case *widget.Select:
		w.add(Placed{Kind: "button", Text: selectText(v), Clipped: selectCut(v)}, p, s, clip, shown, under)
		return true
	case *widget.Entry, *widget.Slider, *widget.ProgressBar:
		return true
	case *canvas.Text:
		w.text(v, p, clip, shown, under)
		return true
	case *canvas.Image, *canvas.Raster:
		w.add(Placed{Kind: "figure"}, p, s, clip, shown, under)
		return true
	case *Heatmap:
		w.add(Placed{Kind: "figure"}, p, s, clip, shown, under)
	case *LessonCard:
		w.add(Placed{Kind: "card", Text: v.Title.Text}, p, s, clip, shown, under)
	}
	return false
}

// add lists pl with the box (p, s): visible when shown and inside clip,
// clipped too when partly outside it.
func (w *layoutWalk) add(pl Placed, p fyne.Position, s fyne.Size, clip rect, shown bool, under fyne.CanvasObject) {
	box := rect{p.X, p.Y, p.X + s.Width, p.Y + s.Height}
	pl.Pos, pl.Size, pl.Under = p, s, under
	pl.Visible = shown && !box.meet(clip).empty()
	pl.Clipped = pl.Visible && (pl.Clipped || !clip.holds(box))
	w.out = append(w.out, pl)
}

// label lists a label as the box of its text: its text cut (truncated)
// or, wrapped, taller than the label is clipped.
func (w *layoutWalk) label(l *widget.Label, p fyne.Position, clip rect, shown bool, under fyne.CanvasObject) {
	text := strings.TrimSpace(l.Text)
	if text == "" {
		return
	}
	s, pad := l.Size(), theme.InnerPadding()
	m := fyne.MeasureText(l.Text, theme.TextSize(), l.TextStyle)
	cut := false
	if l.Wrapping == fyne.TextWrapOff {
		cut = m.Width+2*pad > s.Width+1
	} else {
		cut = l.MinSize().Height > s.Height+1
	}
	inner := fyne.NewSize(min(m.Width, max(0, s.Width-2*pad)), max(0, s.Height-pad))
	if l.Wrapping == fyne.TextWrapOff {
		inner.Height = min(inner.Height, m.Height)
	}
	at := p.Add(fyne.NewPos(pad, (s.Height-inner.Height)/2))
	switch l.Alignment {
	case fyne.TextAlignCenter:
		at.X = p.X + (s.Width-inner.Width)/2
	case fyne.TextAlignTrailing:
		at.X = p.X + s.Width - pad - inner.Width
	}
	w.add(Placed{Kind: "text", Text: l.Text, Clipped: cut}, at, inner, clip, shown, under)
}

// text lists a canvas text as the box its letters take.
func (w *layoutWalk) text(t *canvas.Text, p fyne.Position, clip rect, shown bool, under fyne.CanvasObject) {
	if strings.TrimSpace(t.Text) == "" {
		return
	}
	size := t.TextSize
	if size == 0 {
		size = theme.TextSize()
	}
	m := fyne.MeasureText(t.Text, size, t.TextStyle)
	s := t.Size()
	at := p
	switch t.Alignment {
	case fyne.TextAlignCenter:
		at.X += (s.Width - m.Width) / 2
	case fyne.TextAlignTrailing:
		at.X += s.Width - m.Width
	}
	w.add(Placed{Kind: "text", Text: t.Text}, at, m, clip, shown, under)
}

// tokens lists the chips of one row of the token strip; a written token
// hidden while the class guesses is listed as not visible.
func (w *layoutWalk) tokens(r *chipRow, p fyne.Position, clip rect, shown bool, under fyne.CanvasObject) {
	ren, ok := test.WidgetRenderer(r).(*chipRowRenderer)
	if !ok {
		return
	}
	span := r.span()
	for k := range min(span[1]-span[0], len(ren.rects)) {
		tok := r.t.tokens[span[0]+k]
		rc := ren.rects[k]
		pl := Placed{Kind: "token", Text: Shown(tok.Text), Generated: tok.Generated}
		m := fyne.MeasureText(pl.Text, chipTextSize(), ren.texts[k].TextStyle)
		pl.Clipped = m.Width > rc.Size().Width+1
		w.add(pl, p.Add(rc.Position()), rc.Size(), clip, shown && !(tok.Generated && r.t.hideWritten), under)
	}
}

// selectText is what a select shows: its choice, else its placeholder.
func selectText(v *widget.Select) string {
	if v.Selected != "" {
		return v.Selected
	}
	return v.PlaceHolder
}

// selectCut reports whether a select ellipsises what it shows: its
// minimum width counts the placeholder only, and its text gets the width
// left of the drop-down icon (Fyne's select and rich text layouts).
func selectCut(v *widget.Select) bool {
	pad, inner := theme.Padding(), theme.InnerPadding()
	room := v.Size().Width - theme.IconInlineSize() - 3*inner + pad
	return v.MinSize().Width > v.Size().Width+1 ||
		fyne.MeasureText(selectText(v), theme.TextSize(), fyne.TextStyle{}).Width > room
}
