package views

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"loupe/viz"
)

// A result's figure is drawn at the size of the room the panel leaves it,
// pixel for pixel (text at the window's size, nothing cut by a scroll),
// again when the room changes; with the result on screen the plan and an
// empty status give their lines to it.
func TestExperimentsFigureFitsRoom(t *testing.T) {
	newTestApp(t)
	p := NewExperimentsPanel([]Experiment{{Key: "k", Title: "K"}})
	w := test.NewWindow(p)
	defer w.Close()
	w.Resize(fyne.NewSize(1000, 700))
	p.Plan.SetText("Reads 128 tokens: about 2 s.")
	p.Display(viz.NoData(viz.Dark(), "a figure"), "The sentence reading it.", "A note.")
	fits := func(what string) {
		t.Helper()
		img, s := p.fig.img.Image, p.fig.Size()
		if img == nil || img.Bounds().Dx() != int(s.Width) || img.Bounds().Dy() != int(s.Height) {
			t.Fatalf("%s: figure drawn %v for a room of %v", what, img.Bounds(), s)
		}
	}
	fits("at 1000 × 700")
	if p.Plan.Visible() || p.Status.Visible() || !p.Reading.Visible() {
		t.Errorf("plan shown %v, empty status shown %v, reading shown %v", p.Plan.Visible(), p.Status.Visible(), p.Reading.Visible())
	}
	w.Resize(fyne.NewSize(800, 560))
	fits("at 800 × 560")
	if top, fig := p.Reading.Position().Y, p.fig.Position().Y; top >= fig {
		t.Errorf("the reading sentence at y %v is not above the figure at %v", top, fig)
	}
}
