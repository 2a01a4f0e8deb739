package viz

import (
	"bytes"
	"flag"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"testing"

	"loupe/trace"
)

// The images under testdata/regression were drawn by Loupe and looked at
// by a person: they are regression tests, which catch a change in how a
// figure is drawn (a moved label, a changed colour), not proofs that it is
// right. The numbers a figure draws are proved against references
// elsewhere: trace/stats against hand-computed values, and in this
// package TestCellAt and TestAttentionCellsColourTheirShare, which check
// the pixels of a cell against the palette's colour of its value.

var update = flag.Bool("update", false, "rewrite testdata/regression/*.png (look at them first)")

// checkRegression renders f at w × h px and compares it with
// testdata/regression/name.png: at most 0.5 % of the pixels may differ by
// more than 24/255 in a channel, which absorbs anti-aliasing noise between
// platforms but catches a moved label or a changed colour.
func checkRegression(t *testing.T, name string, f Figure, w, h int) {
	t.Helper()
	img, err := Image(f, w, h, DPI)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	path := filepath.Join("testdata", "regression", name+".png")
	if *update {
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := readPNG(path)
	if err != nil {
		t.Fatalf("%s: %v (run go test -update after looking at the figure)", name, err)
	}
	if n, frac := diffPixels(img, want, 24); frac > 0.005 {
		t.Errorf("%s: %d pixels (%.2f %%) differ from %s", name, n, 100*frac, path)
	}
}

func readPNG(path string) (image.Image, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return readPNGReader(bytes.NewReader(b))
}

func readPNGReader(r io.Reader) (image.Image, error) { return png.Decode(r) }

// diffPixels counts pixels whose channels differ by more than tol (0..255);
// a size mismatch counts every pixel.
func diffPixels(a, b image.Image, tol uint32) (int, float64) {
	ra, rb := a.Bounds(), b.Bounds()
	total := ra.Dx() * ra.Dy()
	if ra.Size() != rb.Size() || total == 0 {
		return total, 1
	}
	n := 0
	for y := 0; y < ra.Dy(); y++ {
		for x := 0; x < ra.Dx(); x++ {
			if !near(a.At(ra.Min.X+x, ra.Min.Y+y), b.At(rb.Min.X+x, rb.Min.Y+y), tol) {
				n++
			}
		}
	}
	return n, float64(n) / float64(total)
}

func near(a, b interface{ RGBA() (r, g, b, a uint32) }, tol uint32) bool {
	r1, g1, b1, a1 := a.RGBA()
	r2, g2, b2, a2 := b.RGBA()
	d := func(x, y uint32) uint32 {
		if x > y {
			return (x - y) >> 8
		}
		return (y - x) >> 8
	}
	return d(r1, r2) <= tol && d(g1, g2) <= tol && d(b1, b2) <= tol && d(a1, a2) <= tol
}

// regressionFigures are the figures pinned by regression images, each at a small
// size in both themes where the theme matters.
func regressionFigures() []struct {
	name string
	f    Figure
	w, h int
} {
	g := Grid{Weights: attentionOnSource(28, 12), Query: " a", Source: " purple", QueryPos: 16, SourcePos: 3,
		Note: "attention sink: 43.0 % on “My” on average"}
	small := Grid{Weights: attentionOnSource(4, 8), Query: " a", Source: " purple", QueryPos: 16, SourcePos: 3,
		Marked: []trace.Head{{Layer: 2, Head: 3}, {Layer: 0, Head: 7}, {Layer: 9, Head: 9}}}
	long := make([]float32, 3139)
	for i := range long {
		long[i] = float32(0.5 / 3139)
	}
	long[0], long[1234], long[3000] = 0.3, 0.15, 0.05
	sampled, sampledSettings := sampledStages()
	return []struct {
		name string
		f    Figure
		w, h int
	}{
		{"attention_dark", AttentionGrid(g, Dark()), 720, 560},
		{"attention_light", AttentionGrid(g, Light()), 720, 560},
		{"attention_4x8", AttentionGrid(small, Dark()), 560, 360},
		{"attention_from0", AttentionGrid(small, fromZero(Light())), 560, 360},
		{"headbars", HeadBars(purpleTokens, headWeights(), "layer 18, head 2: attention of “·a”", Dark()), 560, 520},
		{"headbars_long", HeadBars(nil, long, "3,139 tokens", Light()), 560, 360},
		{"candidates", TopCandidates(purpleCandidates, 24932, Dark()), 560, 400},
		{"timing", TimingBars(articleRuns, 47, Dark()), 640, 360},
		{"nodata", AttentionGrid(Grid{}, Dark()), 320, 200},
		{"mlp", MLPValues(mlpValues(), 600, "", Dark()), 640, 360},
		{"embedding", Embedding(embeddingRow(), " purple", Light()), 640, 300},
		{"kvcache", KVCache(kv(17, 128, 1, true), kv(17, 128, 2, false), purpleTokens, Dark()), 720, 480},
		{"kvcache_long", KVCache(kv(3139, 128, 1, true), kv(3139, 128, 2, false), nil, Light()), 640, 400},
		{"params", ParamShares(qwen15, Dark()), 640, 320},
		{"steps", StepProbs(loopSteps, Dark()), 480, 280},
		{"steps_many", StepProbs(manySteps(), Light()), 640, 300},
		{"softmax", ScoreShares(nil, []float64{1.2, 3.5, 0.4, 2.1}, Dark()), 480, 280},
		{"output_shares", OutputShares([]trace.ModelInfo{qwen15, qwen35}, Dark()), 640, 220},
		{"tokens", TokenChips(sentence(), Dark()), 640, 240},
		{"tokens_light", TokenChips(sentence(), Light()), 320, 200},
		{"layer_heads", LayerHeads(purpleTokens, layer18(), 18, Dark()), 560, 420},
		{"logit_lens", LogitLens(purpleLens(), "·a", 16, -1, Dark()), 720, 640},
		{"logit_lens_light", LogitLens(purpleLens()[:6], "·a", 16, 24932, fromZero(Light())), 560, 320},
		{"sampler_stages", SamplerStages(sampled, sampledSettings, Dark()), 900, 420},
		{"sampler_greedy", SamplerStages(greedyStages(), trace.Settings{}, Light()), 560, 360},
		{"embedding_row", EmbeddingRow(embeddingRow(), EmbeddingRowInfo{Token: " purple", Row: 24503, Rows: 151936, Tied: true}, Light()), 720, 520},
	}
}

// fromZero is th counting layers and heads as in code.
func fromZero(th Theme) Theme {
	th.Count = FromZero
	return th
}

func TestImageRegression(t *testing.T) {
	for _, g := range regressionFigures() {
		t.Run(g.name, func(t *testing.T) { checkRegression(t, g.name, g.f, g.w, g.h) })
	}
}
