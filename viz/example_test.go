package viz_test

import (
	"fmt"
	"os"

	"gonum.org/v1/plot/vg"

	"loupe/trace"
	"loupe/trace/stats"
	"loupe/viz"
)

// A GUI renders a figure at its widget's pixel size and maps the mouse
// back to a cell of the attention grid.
func ExampleAttentionFigure_CellAt() {
	a := trace.Attention{QueryPos: 1, Weights: [][][]float32{
		{{0.9, 0.1}, {0.4, 0.6}}, // layer 0: two heads over keys 0..1
		{{0.5, 0.5}, {0.2, 0.8}}, // layer 1
	}}
	m, err := stats.SourceMapOf(a, 0, trace.ModelInfo{})
	if err != nil {
		fmt.Println(err)
		return
	}
	f := viz.AttentionGrid(viz.GridOf(m, []string{"My", " cat"}), viz.Dark()).(*viz.AttentionFigure)
	const w, h, dpi = 800, 600, viz.DPI
	if _, err := viz.Image(f, w, h, dpi); err != nil {
		fmt.Println(err)
		return
	}
	r := f.CellRect(1, 0, w, h, dpi) // layer 1, head 0
	layer, head, ok := f.CellAt(float64(r.Min.X+2), float64(r.Min.Y+2), w, h, dpi)
	fmt.Println(layer, head, ok)
	// Output: 1 0 true
}

// Exporting a figure for a slide: SVG with embedded fonts, or PNG.
func ExampleSVG() {
	f := viz.TimingBars([]viz.TimingRow{{Label: "purple cat", PrefillTokens: 17, PrefillSeconds: 0.08,
		DecodeTokens: 100, DecodeSeconds: 7.1}}, 0, viz.Light())
	b, err := viz.SVG(f, 8*vg.Inch, 4*vg.Inch)
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = os.WriteFile(os.DevNull, b, 0o644)
	fmt.Println(len(b) > 0)
	// Output: true
}
