package views

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// RowScroll is a vertical scroll whose viewport ends above the first text
// it would cut in half: a panel taller than its tab shows whole lines and
// its scroll bar, not the top half of a row (the Model panel's Kernels
// row, the Experts panel's bars, at 1,366 × 768 beside the lesson card).
// The band it leaves below is at most one text high; where one text is
// taller than half the room, it is cut rather than the room emptied.
type RowScroll struct {
	widget.BaseWidget
	Scroll  *container.Scroll
	content fyne.CanvasObject
}

// NewRowScroll scrolls content vertically, ending at whole rows.
func NewRowScroll(content fyne.CanvasObject) *RowScroll {
	s := &RowScroll{content: content}
	// The content in a container of its own, so that a change of its
	// height (a label wraps anew) lays this out again.
	s.Scroll = container.NewVScroll(container.New(rowWatch{s}, content))
	s.ExtendBaseWidget(s)
	return s
}

// CreateRenderer implements fyne.Widget.
func (s *RowScroll) CreateRenderer() fyne.WidgetRenderer {
	return &rowScrollRenderer{s: s, objects: []fyne.CanvasObject{s.Scroll}}
}

// Relayout lays the content out again where a text in it changed: Fyne
// lays a container out when its size changes, not when a child's minimum
// does, so a wrapped text that took another line keeps its old height and
// the rows below it cover the new line.
func (s *RowScroll) Relayout() {
	if c, ok := s.content.(*fyne.Container); ok {
		c.Refresh() // lays its children out at their new minimum sizes
	}
	s.Refresh()
}

// fit sizes the viewport: the room it is given, cut at the top of a text
// its bottom edge would cross.
func (s *RowScroll) fit() {
	room := s.Size()
	if room.IsZero() {
		return
	}
	s.Scroll.Resize(fyne.NewSize(room.Width, wholeRows(s.Scroll.Content, s.Scroll.Offset.Y, room.Height)))
}

type rowScrollRenderer struct {
	s       *RowScroll
	objects []fyne.CanvasObject
}

func (r *rowScrollRenderer) Layout(size fyne.Size) {
	r.s.Scroll.Resize(size) // the content laid out at the room's width first
	r.s.fit()
}

func (r *rowScrollRenderer) MinSize() fyne.Size             { return r.s.Scroll.MinSize() }
func (r *rowScrollRenderer) Refresh()                       { r.s.Scroll.Refresh(); r.s.fit() }
func (r *rowScrollRenderer) Objects() []fyne.CanvasObject   { return r.objects }
func (r *rowScrollRenderer) Destroy()                       {}
func (r *rowScrollRenderer) SetObjects([]fyne.CanvasObject) {}

// rowWatch lays the scroll's content out at its size, then the viewport
// again: the texts may have moved.
type rowWatch struct{ s *RowScroll }

func (w rowWatch) MinSize(o []fyne.CanvasObject) fyne.Size { return o[0].MinSize() }

func (w rowWatch) Layout(o []fyne.CanvasObject, size fyne.Size) {
	o[0].Move(fyne.Position{})
	o[0].Resize(size)
	w.s.fit()
}

// wholeRows is the height of a viewport of at most room over content
// scrolled down by off whose bottom edge crosses no text: moved up to
// the top of each text it crosses, until none. The room itself when the
// content's end is in view, or when that would leave less than half.
func wholeRows(content fyne.CanvasObject, off, room float32) float32 {
	if content.Size().Height <= off+room+1 {
		return room
	}
	var spans [][2]float32
	textSpans(content, 0, &spans)
	edge := off + room
	for moved := true; moved; {
		moved = false
		for _, s := range spans {
			if s[0] < edge-1 && s[1] > edge+1 {
				edge, moved = s[0], true
			}
		}
	}
	if edge-off < room/2 {
		return room
	}
	return edge - off
}

// textSpans appends the top and bottom (relative to the content, whose
// parent's origin is at y) of every shown text, button and token row
// under o. Figures may be cut: they are walked for the texts they hold.
func textSpans(o fyne.CanvasObject, y float32, spans *[][2]float32) {
	if o == nil || !o.Visible() {
		return
	}
	top := y + o.Position().Y
	switch o.(type) {
	case *widget.Label, *widget.RichText, *widget.Button, *widget.Check, *widget.Select,
		*widget.Entry, *widget.RadioGroup, *widget.Hyperlink, *canvas.Text, *chipRow:
		// A canvas text moved but not resized has no size: its letters'.
		*spans = append(*spans, [2]float32{top, top + max(o.Size().Height, o.MinSize().Height)})
		return
	}
	for _, c := range children(o) {
		textSpans(c, top, spans)
	}
}
