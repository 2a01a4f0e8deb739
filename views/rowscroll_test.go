package views

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// A panel taller than its tab, at every height of a sweep: the layout
// report finds no visible text cut at the bottom of its scroll, and the
// texts below it are there to scroll to. A plain scroll cut the Model
// panel's Kernels row and the Experts panel's bars in half beside the
// lesson card at 1,366 × 768.
func TestRowScrollCutsNoText(t *testing.T) {
	newTestApp(t)
	info, toks, steps := moeRun()
	info.Name, info.Path = "model-tiny-qwen3moe", "/a/folder/of/a/generated/model"
	model := NewModelPanel()
	model.Display(info, "Intel(R) Xeon(R) Processor · 2 cores / 2 threads · AVX2, FMA, AVX-512F, AVX-512-BF16",
		"AVX-512-BF16 in use, prefill rounds activations to bf16 in experts, fp32 elsewhere (probabilities within 3e-3 on the test models)")
	experts := NewExpertsPanel()
	experts.Display(info, toks, steps, 2)
	for _, p := range []Panel{model, experts} {
		w := test.NewWindow(p.Object())
		w.SetPadded(false)
		hidden := 0
		for h := float32(200); h <= 520; h += 3 {
			w.Resize(fyne.NewSize(700, h))
			for _, o := range Layout(w.Content(), w.Canvas().Size(), nil) {
				if o.Kind != "text" && o.Kind != "button" {
					continue
				}
				if o.Visible && o.Clipped {
					t.Errorf("%s at height %.0f: %q cut at %.0f+%.0f", p.Name(), h, o.Text, o.Pos.Y, o.Size.Height)
				}
				if !o.Visible && h == 200 {
					hidden++
				}
			}
		}
		if hidden == 0 {
			t.Errorf("%s: nothing below a 200-high tab: the sweep does not scroll", p.Name())
		}
		w.Close()
	}
}

// The viewport ends at the top of the text its edge would cross, and is
// the whole room when the content fits or is scrolled to its end.
func TestWholeRows(t *testing.T) {
	newTestApp(t)
	var labels []fyne.CanvasObject
	for range 10 {
		labels = append(labels, widget.NewLabel("row"))
	}
	s := NewRowScroll(container.NewVBox(labels...))
	w := test.NewWindow(s)
	w.SetPadded(false)
	row := labels[1].Position().Y - labels[0].Position().Y
	w.Resize(fyne.NewSize(200, 3.5*row))
	if got, want := s.Scroll.Size().Height, labels[3].Position().Y; got != want {
		t.Errorf("3.5 rows of room: viewport %.1f high, want %.1f (the top of the fourth row)", got, want)
	}
	s.Scroll.ScrollToBottom()
	s.Refresh()
	if got := s.Scroll.Size().Height; got != 3.5*row {
		t.Errorf("scrolled to the end: viewport %.1f high, want the room %.1f", got, 3.5*row)
	}
	w.Resize(fyne.NewSize(200, 12*row))
	if got := s.Scroll.Size().Height; got != 12*row {
		t.Errorf("the content fits: viewport %.1f high, want the room %.1f", got, 12*row)
	}
	w.Close()
}
