package viz

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/vg"

	"loupe/format"
	"loupe/trace"
	"loupe/trace/stats"
)

// TestCellAt renders a grid with one hot cell and checks that the
// geometry the GUI uses finds it where the pixels are, at two DPIs.
func TestCellAt(t *testing.T) {
	for _, shape := range []struct{ layers, heads, w, h int }{{28, 12, 720, 560}, {4, 8, 560, 360}} {
		for _, dpi := range []float64{DPI, 2 * DPI} {
			w := make([][]float32, shape.layers)
			for l := range w {
				w[l] = make([]float32, shape.heads)
			}
			hotL, hotH := shape.layers-2, 2
			w[hotL][hotH] = 1
			f := AttentionGrid(Grid{Weights: w, Max: 1}, Dark()).(*AttentionFigure)
			wPx, hPx := int(float64(shape.w)*dpi/DPI), int(float64(shape.h)*dpi/DPI)
			img, err := Image(f, wPx, hPx, dpi)
			if err != nil {
				t.Fatal(err)
			}
			pal := Dark().Palette.Colors()
			for l := range shape.layers {
				for h := range shape.heads {
					r := f.CellRect(l, h, wPx, hPx, dpi)
					cx, cy := (r.Min.X+r.Max.X)/2, (r.Min.Y+r.Max.Y)/2
					gl, gh, ok := f.CellAt(float64(cx)+0.5, float64(cy)+0.5, wPx, hPx, dpi)
					if !ok || gl != l || gh != h {
						t.Fatalf("%dx%d@%v: CellAt(centre of cell %d,%d) = %d,%d,%v", shape.layers, shape.heads, dpi, l, h, gl, gh, ok)
					}
					want := pal[0]
					if l == hotL && h == hotH {
						want = pal[len(pal)-1]
					}
					if !near(img.At(cx, cy), want, 8) {
						t.Fatalf("%dx%d@%v: pixel at centre of cell %d,%d is %v, want %v", shape.layers, shape.heads, dpi, l, h, img.At(cx, cy), want)
					}
				}
			}
			if _, _, ok := f.CellAt(1, 1, wPx, hPx, dpi); ok {
				t.Errorf("CellAt(top-left corner) is inside the heatmap")
			}
		}
	}
}

// everyFigure draws every figure once from the fixtures.
func everyFigure(th Theme) map[string]Figure {
	a := attention(4, 3, 16)
	m, _ := stats.SourceMapOf(a, 3, trace.ModelInfo{})
	g := GridOf(m, purpleTokens)
	return map[string]Figure{
		"attention":  AttentionGrid(g, th),
		"headbars":   HeadBars(purpleTokens, headWeights(), "head", th),
		"candidates": TopCandidates(purpleCandidates, 24932, th),
		"timing":     TimingBars(articleRuns, 47, th),
		"mlp":        MLPValues(mlpValues(), 600, "", th),
		"embedding":  Embedding(embeddingRow(), " purple", th),
		"kvcache":    KVCache(kv(17, 128, 1, true), kv(17, 128, 2, false), purpleTokens, th),
		"params":     ParamShares(qwen15, th),
		"sweep":      Sweep("context", contextSweep, []string{"At 32k positions each token reads 6.8 GB instead of 3.1 GB."}, th),
	}
}

func TestSVGIsXML(t *testing.T) {
	for name, f := range everyFigure(Light()) {
		b, err := SVG(f, 6*vg.Inch, 4*vg.Inch)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		d := xml.NewDecoder(bytes.NewReader(b))
		root := ""
		for {
			tok, err := d.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: SVG does not parse: %v", name, err)
			}
			if s, ok := tok.(xml.StartElement); ok && root == "" {
				root = s.Name.Local
			}
		}
		if root != "svg" || !bytes.Contains(b, []byte("<text")) {
			t.Errorf("%s: root %q, has text: %v", name, root, bytes.Contains(b, []byte("<text")))
		}
	}
}

func TestPNG(t *testing.T) {
	b, err := PNG(everyFigure(Dark())["candidates"], 4*vg.Inch, 3*vg.Inch)
	if err != nil {
		t.Fatal(err)
	}
	img, err := readPNGBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	// 4 in × 3 in at 96 DPI; the corner is the theme's background.
	if img.Bounds().Dx() != 384 || img.Bounds().Dy() != 288 {
		t.Errorf("size %v, want 384×288", img.Bounds())
	}
	if !near(img.At(0, 0), Dark().Background, 0) {
		t.Errorf("corner %v is not the dark background", img.At(0, 0))
	}
}

func TestImageSize(t *testing.T) {
	f := everyFigure(Dark())["timing"]
	img, err := Image(f, 333, 217, 144)
	if err != nil || img.Bounds() != image.Rect(0, 0, 333, 217) {
		t.Fatalf("Image = %v, %v", img.Bounds(), err)
	}
	for _, bad := range [][3]float64{{0, 10, 96}, {10, -1, 96}, {10, 10, 0}, {10, 10, math.NaN()}} {
		if _, err := Image(f, int(bad[0]), int(bad[1]), bad[2]); !errors.Is(err, ErrSize) {
			t.Errorf("Image(%v) error = %v, want ErrSize", bad, err)
		}
	}
	if _, err := Image(nil, 10, 10, 96); err == nil {
		t.Error("Image(nil) gave no error")
	}
}

// TestDegenerate draws every figure from empty, tiny and NaN input: each
// must render without panicking, and the empty ones must say "no data".
func TestDegenerate(t *testing.T) {
	nan := float32(math.NaN())
	th := Dark()
	empty := map[string]Figure{
		"grid none":       AttentionGrid(Grid{}, th),
		"grid no heads":   AttentionGrid(Grid{Weights: [][]float32{{}, {}}}, th),
		"headbars none":   HeadBars(nil, nil, "t", th),
		"candidates none": TopCandidates(nil, 0, th),
		"timing none":     TimingBars(nil, 0, th),
		"timing zero":     TimingBars([]TimingRow{{Label: "x"}}, 0, th),
		"mlp none":        MLPValues(nil, 600, "", th),
		"mlp all NaN":     MLPValues([]float32{nan, nan}, 600, "", th),
		"mlp n=0":         MLPValues([]float32{1, 2}, 0, "", th),
		"embedding none":  Embedding(nil, "x", th),
		"kv none":         KVCache(nil, nil, nil, th),
		"kv no dims":      KVCache([][]float32{{}}, [][]float32{{}}, nil, th),
		"params none":     ParamShares(trace.ModelInfo{}, th),
		"steps none":      StepProbs(nil, th),
		"softmax none":    ScoreShares(nil, nil, th),
		"outputs none":    OutputShares(nil, th),
		"tokens none":     TokenChips(nil, th),
		"heads none":      LayerHeads(nil, nil, 0, th),
	}
	for name, f := range empty {
		if why, ok := IsNoData(f); !ok || why == "" {
			t.Errorf("%s: %T is not a no-data figure", name, f)
		}
		mustRender(t, name, f)
	}
	drawn := map[string]Figure{
		"grid 1x1":          AttentionGrid(Grid{Weights: [][]float32{{0.5}}}, th),
		"grid all NaN":      AttentionGrid(Grid{Weights: [][]float32{{nan, nan}, {nan, nan}}}, th),
		"grid ragged":       AttentionGrid(Grid{Weights: [][]float32{{0.1}, {0.2, 0.3, 0.9}}}, th),
		"grid inf":          AttentionGrid(Grid{Weights: [][]float32{{float32(math.Inf(1)), -1}}}, th),
		"headbars one":      HeadBars([]string{"x"}, []float32{1}, "", th),
		"headbars NaN":      HeadBars([]string{"a", "b"}, []float32{nan, nan}, "", th),
		"headbars no texts": HeadBars(nil, []float32{0.2, 0.8}, "", th),
		"candidates NaN":    TopCandidates([]trace.Candidate{{ID: 1, P: math.NaN()}}, 7, th),
		"timing no decode":  TimingBars([]TimingRow{{Label: "x", PrefillTokens: 3, PrefillSeconds: 1}}, 0, th),
		"zero theme":        HeadBars([]string{"x"}, []float32{1}, "zero theme", Theme{}),
		"mlp one":           MLPValues([]float32{-0.5}, 600, "", th),
		"embedding NaN":     Embedding([]float32{nan, 1, -1}, "", th),
		"kv one":            KVCache([][]float32{{1}}, [][]float32{{nan}}, []string{"x"}, th),
		"kv zeros":          KVCache([][]float32{{0, 0}}, [][]float32{{0, 0}, {0, 0}}, nil, th),
		"params tiny":       ParamShares(trace.ModelInfo{ParamsMLP: 1}, th),
		"steps NaN":         StepProbs([]trace.Step{{Chosen: trace.Candidate{P: math.NaN()}}}, th),
		"softmax NaN":       ScoreShares([]string{"a"}, []float64{math.NaN()}, th),
		"outputs empty":     OutputShares([]trace.ModelInfo{{}}, th),
		"tokens many":       TokenChips(append(append(sentence(), sentence()...), sentence()...), th),
		"tokens empty text": TokenChips([]trace.Token{{Text: ""}}, th),
		"heads NaN":         LayerHeads(nil, [][]float32{{nan}, {}}, 3, th),
	}
	for name, f := range drawn {
		if _, ok := IsNoData(f); ok {
			t.Errorf("%s: drawn as no data", name)
		}
		mustRender(t, name, f)
	}
}

func mustRender(t *testing.T, name string, f Figure) {
	t.Helper()
	for _, size := range [][2]int{{400, 300}, {60, 40}} {
		if _, err := Image(f, size[0], size[1], DPI); err != nil {
			t.Errorf("%s at %v: %v", name, size, err)
		}
	}
	if b, err := SVG(f, 300, 200); err != nil || !strings.Contains(string(b), "<svg") {
		t.Errorf("%s: SVG: %v", name, err)
	}
}

func readPNGBytes(b []byte) (image.Image, error) {
	return readPNGReader(bytes.NewReader(b))
}

// TestHeatRaster draws the same 80 × 64 grid as vector cells and as one
// raster image: they must agree, and the hot corner must be where row 0
// (bottom) and column 0 (left) are.
func TestHeatRaster(t *testing.T) {
	rows := make([][]float64, 80)
	for r := range rows {
		rows[r] = make([]float64, 64)
		for c := range rows[r] {
			rows[r][c] = float64((r*7 + c*3) % 11)
		}
	}
	for c := range 16 {
		for r := range 20 {
			rows[r][c] = 10
		}
	}
	th := Dark()
	draw := func(raster int) image.Image {
		h := newHeat(rows, th.Palette, 0, 10, th)
		h.raster = raster
		p := th.newPlot()
		p.Add(h)
		p.HideAxes()
		p.X.Padding, p.Y.Padding = 0, 0
		img, err := Image(p, 256, 240, DPI)
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	vector, raster := draw(1<<30), draw(0)
	if n, frac := diffPixels(vector, raster, 24); frac > 0.03 {
		t.Errorf("raster and vector heatmaps differ in %d pixels (%.1f %%)", n, 100*frac)
	}
	top := th.Palette.Colors()[len(th.Palette.Colors())-1]
	// Bottom-left 16 × 20 cells of 4 × 3 px are hot: pixel (20, 200) is inside.
	if !near(raster.At(20, 200), top, 8) || near(raster.At(200, 20), top, 8) {
		t.Errorf("raster corner colours %v / %v", raster.At(20, 200), raster.At(200, 20))
	}
}

// TestSmallSizes renders every figure, normal and degenerate, on a sweep
// of small canvases: none may panic or hang (a heatmap on an inverted
// canvas once sent the rasteriser into an endless scan).
func TestSmallSizes(t *testing.T) {
	figs := everyFigure(Dark())
	figs["kv zeros"] = KVCache([][]float32{{0, 0}}, [][]float32{{0, 0}, {0, 0}}, nil, Dark())
	figs["kv one"] = KVCache([][]float32{{1}}, [][]float32{{float32(math.NaN())}}, []string{"x"}, Dark())
	figs["grid 1x1"] = AttentionGrid(Grid{Weights: [][]float32{{0.5}}}, Dark())
	figs["tokens"] = TokenChips(sentence(), Dark())
	figs["steps"] = StepProbs(manySteps(), Dark())
	figs["heads"] = LayerHeads(purpleTokens, layer18(), 18, Dark())
	for name, f := range figs {
		for _, w := range []int{8, 45, 90, 150, 260} {
			for _, h := range []int{8, 45, 90, 150, 260} {
				done := make(chan error, 1)
				go func() { _, err := Image(f, w, h, DPI); done <- err }()
				select {
				case err := <-done:
					if err != nil {
						t.Errorf("%s at %d×%d: %v", name, w, h, err)
					}
				case <-time.After(10 * time.Second):
					t.Fatalf("%s at %d×%d: still drawing after 10 s", name, w, h)
				}
			}
		}
	}
}

func TestHybridFigures(t *testing.T) {
	a := trace.Attention{QueryPos: 1, Weights: [][][]float32{nil, {{0.5, 0.5}, {0.9, 0.1}}}}
	m, err := stats.SourceMapOf(a, 0, trace.ModelInfo{LayerTypes: []string{"linear_attention", "full_attention"}})
	g := GridOf(m, []string{"a", "b"})
	if err != nil || g.Gaps[0] != stats.DeltaNetRowLabel {
		t.Fatalf("gaps %v, %v", g.Gaps, err)
	}
	d := trace.DeltaNet{Layer: 0, Alpha: [][]float32{{0.9, 0.1}, {0.8, 0.2}}, Beta: [][]float32{{0.5, 0.5}, {0.4, 0.6}},
		StatePos: []int{1}, StateNorm: [][]float32{{1, 2}}}
	for _, f := range []Figure{AttentionGrid(g, Dark()), DeltaNetFigure(d, "why", Light())} {
		if _, err := Image(f, 900, 600, 96); err != nil {
			t.Fatal(err)
		}
		if why, ok := IsNoData(f); ok {
			t.Fatalf("no data: %s", why)
		}
	}
}

// TestAttentionCellsColourTheirShare: every cell of the grid is painted
// the colour of its share on the continuous Viridis stops (format), a
// reference computed apart from the figure's sampled palette and heatmap.
func TestAttentionCellsColourTheirShare(t *testing.T) {
	const layers, heads, w, h = 6, 5, 720, 560
	g := Grid{Weights: make([][]float32, layers), Max: 1}
	for l := range g.Weights {
		g.Weights[l] = make([]float32, heads)
		for hd := range heads {
			g.Weights[l][hd] = float32(l*heads+hd) / (layers*heads - 1) // 0 … 1
		}
	}
	f := AttentionGrid(g, Dark()).(*AttentionFigure)
	img, err := Image(f, w, h, DPI)
	if err != nil {
		t.Fatal(err)
	}
	for l := range layers {
		for hd := range heads {
			r := f.CellRect(l, hd, w, h, DPI)
			got := img.At((r.Min.X+r.Max.X)/2, (r.Min.Y+r.Max.Y)/2)
			if want := format.Viridis.At(float64(g.Weights[l][hd])); !near(got, want, 3) {
				t.Errorf("cell %d,%d (share %.3f): pixel %v, want %v", l, hd, g.Weights[l][hd], got, want)
			}
		}
	}
}
