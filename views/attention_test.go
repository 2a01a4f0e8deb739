package views

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"loupe/i18n"
)

// The attention panel's Export… menu offers the six figures and
// formats, each sent to OnExport as the six buttons did.
func TestAttentionExportMenu(t *testing.T) {
	newTestApp(t)
	p := NewAttentionPanel()
	var got [][2]string
	p.OnExport = func(fig, f string) { got = append(got, [2]string{fig, f}) }
	for _, it := range p.ExportMenu.Items {
		it.Action()
	}
	want := [][2]string{{"attention", "png"}, {"attention", "svg"}, {"head", "png"}, {"head", "svg"}, {"attention", "csv"}, {"head", "csv"}}
	if len(got) != len(want) {
		t.Fatalf("menu sent %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("item %d (%s) sent %v, want %v", i, p.ExportMenu.Items[i].Label, got[i], want[i])
		}
	}
}

// The colour scale's bottom reads 0 % in the window's notation: French
// puts a narrow no-break space before the sign, as format does.
func TestAttentionScaleZeroInFrench(t *testing.T) {
	newTestApp(t)
	inLang(t, i18n.French)
	p := NewAttentionPanel()
	var found bool
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch w := o.(type) {
		case *widget.Label:
			found = found || w.Text == "0\u202f%"
		case *fyne.Container:
			for _, c := range w.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(w).Objects() {
				walk(c)
			}
		}
	}
	walk(p.gridBox) // beside the grid, shown once there is data
	if !found {
		t.Error(`no "0\u202f%" under the colour scale`)
	}
}
