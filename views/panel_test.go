package views

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"loupe/session"
	"loupe/viz"
)

// buttons are the buttons under o whose text contains text.
func buttons(o fyne.CanvasObject, text string) []*widget.Button {
	var out []*widget.Button
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch w := o.(type) {
		case *widget.Button:
			if strings.Contains(w.Text, text) {
				out = append(out, w)
			}
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
	walk(o)
	return out
}

// Every panel but the attention grid (which names the figure, grid or
// head) sends its export buttons where SetOnExport says, takes a View
// with nothing selected without a fault, and names itself.
func TestPanelsExportThroughSetOnExport(t *testing.T) {
	newTestApp(t)
	panels := []Panel{NewNextTokenPanel(), NewTimingPanel(), NewModelPanel(), NewMLPPanel(), NewExpertsPanel(),
		NewDeltaNetPanel(), NewEmbeddingPanel(), NewKVCachePanel(), NewLogitLensPanel(), NewSamplerPanel(), NewComparePanel()}
	names := map[string]bool{}
	for _, p := range panels {
		var got []string
		p.SetOnExport(func(f string) { got = append(got, f) })
		p.SetTheme(viz.Light)
		p.SetCount(viz.FromZero)
		w := test.NewWindow(p.Object())
		csv := buttons(p.Object(), "CSV")
		if len(csv) == 0 {
			t.Errorf("%s: no CSV button", p.Name())
		}
		for _, b := range csv {
			test.Tap(b)
		}
		if len(got) == 0 || got[0] != "csv" {
			t.Errorf("%s: export buttons gave %v, want csv", p.Name(), got)
		}
		p.ShowView(session.New().View())
		if names[p.Name()] || p.Name() == "" || p.Tab() == "" || len(p.Parts()) == 0 {
			t.Errorf("panel %q (tab %q): a name twice, or empty, or nothing laid out", p.Name(), p.Tab())
		}
		names[p.Name()] = true
		w.Close()
	}
}
