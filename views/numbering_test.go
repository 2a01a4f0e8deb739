package views

import (
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"loupe/format"
	"loupe/trace"
	"loupe/viz"
)

// shownLabels are the visible numbers of an Axes, rows then columns.
func shownLabels(a *Axes) (rows, cols []string) {
	r := test.WidgetRenderer(a).(*axesRenderer)
	for _, t := range r.rows {
		if !t.Hidden {
			rows = append(rows, t.Text)
		}
	}
	for _, t := range r.cols {
		if !t.Hidden {
			cols = append(cols, t.Text)
		}
	}
	return rows, cols
}

func TestAxesNumberEveryLayerAndHead(t *testing.T) {
	newTestApp(t)
	count := viz.FromOne
	index := func(i int) string { return count.Index(i) }
	h := NewHeatmap(28, 16)
	h.BottomUp = true // as the attention grid: layer 1 at the bottom
	g := make([][]float64, 28)
	for i := range g {
		g[i] = make([]float64, 12)
	}
	h.SetValues(g)
	a := NewAxes(h, index, index)
	a.Count = &count
	w := test.NewWindow(a)
	defer w.Close()
	a.Resize(a.MinSize())
	rows, cols := shownLabels(a)
	if len(rows) != 28 || rows[0] != "1" || rows[27] != "28" || len(cols) != 12 || cols[11] != "12" {
		t.Fatalf("28 × 12 at full size: rows %v, cols %v; want every one, from 1", rows, cols)
	}
	// Layer 1 (index 0) is the bottom row: its label sits below layer 2's.
	r := test.WidgetRenderer(a).(*axesRenderer)
	if r.rows[0].Position().Y <= r.rows[1].Position().Y {
		t.Errorf("layer 1 at y=%v above layer 2 at y=%v", r.rows[0].Position().Y, r.rows[1].Position().Y)
	}
	// Squeezed to 4 px a row, the numbers thin out to multiples.
	h.cell = fyne.NewSize(4, 4)
	a.Resize(fyne.NewSize(a.MinSize().Width, 28*4+60))
	rows, _ = shownLabels(a)
	if len(rows) == 28 || len(rows) == 0 || rows[0] == "1" {
		t.Errorf("thinned rows %v", rows)
	}
	// From 0, as in code.
	count = viz.FromZero
	a.Refresh()
	a.Resize(fyne.NewSize(400, 28*16+60))
	rows, cols = shownLabels(a)
	if rows[0] != "0" || cols[len(cols)-1] != "11" {
		t.Errorf("from 0: rows %v cols %v", rows, cols)
	}
}

func TestAttentionPanelCountsFromOne(t *testing.T) {
	newTestApp(t)
	p := NewAttentionPanel()
	w := test.NewWindow(p)
	defer w.Close()
	a := fakeAttention(3, 4, 5)
	p.Display(fakeInfo(3, 4, 2), tokens(6), a, 5, 2)
	p.OpenHead(2, 3)
	if !strings.Contains(p.HeadTitle.Text, "layer 3, head 4 (shares K/V head 2)") {
		t.Errorf("from 1: head title %q", p.HeadTitle.Text)
	}
	if !strings.Contains(p.Caption.Text, "layers 1…3") || !strings.Contains(p.Caption.Text, "heads 1…4") {
		t.Errorf("caption %q", p.Caption.Text)
	}
	p.SetCount(viz.FromZero)
	p.OpenHead(2, 3)
	if !strings.Contains(p.HeadTitle.Text, "layer 2, head 3 (shares K/V head 1)") {
		t.Errorf("from 0: head title %q", p.HeadTitle.Text)
	}
}

// fakeAttention is a capture of query q over L layers × H heads, every
// head sharing its attention evenly.
func fakeAttention(L, H, q int) []trace.Attention {
	a := trace.Attention{QueryPos: q, Weights: make([][][]float32, L)}
	for l := range L {
		a.Weights[l] = make([][]float32, H)
		for h := range H {
			a.Weights[l][h] = make([]float32, q+1)
			for k := range q + 1 {
				a.Weights[l][h][k] = 1 / float32(q+1)
			}
		}
	}
	return []trace.Attention{a}
}

func fakeInfo(L, H, KV int) trace.ModelInfo {
	return trace.ModelInfo{Layers: L, Heads: H, KVHeads: KV, HeadDim: 8}
}

// On a long sequence the head list shows the top 16, the others, then the
// last 8 tokens up to the query in reading order with their own shares.
func TestHeadListShowsTokensBeforeQuery(t *testing.T) {
	newTestApp(t)
	p := NewAttentionPanel()
	w := test.NewWindow(p)
	defer w.Close()
	const q = 3138
	a := fakeAttention(2, 2, q)
	row := a[0].Weights[1][0]
	for k := range row {
		row[k] = 0.2 / float32(q) // spread thin
	}
	row[0], row[1500], row[q-1] = 0.5, 0.2, 0.1 // the sink, a far token, the previous one
	p.Display(fakeInfo(2, 2, 2), tokens(q+1), a, q, 1500)
	p.OpenHead(1, 0)
	var at int = -1
	for i := range p.Head.Len() {
		if p.Head.Row(i).Label == "in order:" {
			at = i
		}
	}
	if at < 0 || p.Head.Len()-at-1 != nearShown {
		t.Fatalf("no in-order rows after the top list: %d rows, marker at %d", p.Head.Len(), at)
	}
	for j := range nearShown {
		r, pos := p.Head.Row(at+1+j), q-nearShown+1+j
		if want := format.Percent(float64(row[pos])); !strings.HasSuffix(r.Label, fmt.Sprint(" ", pos)) || r.Value != want {
			t.Errorf("row %d: %+v, want position %d at %s", j, r, pos, want)
		}
	}
	// A short sequence fits the top list: no extra rows.
	p.Display(fakeInfo(2, 2, 2), tokens(6), fakeAttention(2, 2, 5), 5, 2)
	p.OpenHead(0, 0)
	for i := range p.Head.Len() {
		if p.Head.Row(i).Label == "in order:" {
			t.Error("in-order rows on a 6-token sequence")
		}
	}
}
