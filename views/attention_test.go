package views

import (
	"testing"
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
