package views

import (
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// Compact hides the long paragraphs for projector mode and Compact(false)
// brings back the full panel: the same texts, the same widths.
func TestCompactRestoresThePanels(t *testing.T) {
	newTestApp(t)
	kv := NewKVCachePanel()
	test.WidgetRenderer(kv) // the selects' placeholder is set when drawn
	next := NewNextTokenPanel()
	ex := NewExperimentsPanel(nil)
	wideKV, wideEx := kv.MinSize().Width, ex.MinSize().Width
	holder := kv.Layer.PlaceHolder
	for _, c := range []Compacter{kv, next, ex} {
		c.Compact(true)
	}
	for _, l := range []*widget.Label{kv.Sizes, kv.Live, kv.Totals, next.Dist} {
		if l.Visible() {
			t.Errorf("compact: %q still shown", l.Text)
		}
	}
	if kv.Read.Text != tr("views.kv.read_short", nil) || next.Read.Text != tr("views.next.read_greedy_short", nil) {
		t.Errorf("compact: captions %q, %q, want the short ones", kv.Read.Text, next.Read.Text)
	}
	if w := kv.MinSize().Width; w >= wideKV {
		t.Errorf("compact KV cache panel %.0f wide, want less than %.0f", w, wideKV)
	}
	if w := ex.MinSize().Width; w >= wideEx {
		t.Errorf("compact experiments panel %.0f wide, want less than %.0f", w, wideEx)
	}
	for _, c := range []Compacter{kv, next, ex} {
		c.Compact(false)
	}
	for _, l := range []*widget.Label{kv.Sizes, kv.Live, kv.Totals, next.Dist} {
		if !l.Visible() {
			t.Errorf("back from compact: %q hidden", l.Text)
		}
	}
	if kv.Read.Text != tr("views.kv.read", nil) || next.Read.Text != tr("views.next.read_greedy", nil) || kv.Layer.PlaceHolder != holder {
		t.Errorf("back from compact: %q, %q, placeholder %q", kv.Read.Text, next.Read.Text, kv.Layer.PlaceHolder)
	}
	if kv.MinSize().Width != wideKV || ex.MinSize().Width != wideEx {
		t.Errorf("back from compact: widths %.0f, %.0f, want %.0f, %.0f", kv.MinSize().Width, ex.MinSize().Width, wideKV, wideEx)
	}
}
