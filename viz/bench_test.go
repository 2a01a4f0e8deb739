package viz

import (
	"testing"

	"gonum.org/v1/plot/vg"
)

// The GUI redraws a figure at most every ~100 ms; these show how long one
// render takes at a typical panel size (1200 × 800 px) and the SVG size.
func benchImage(b *testing.B, f Figure) {
	for b.Loop() {
		if _, err := Image(f, 1200, 800, DPI); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAttentionGrid28x12(b *testing.B) {
	benchImage(b, AttentionGrid(Grid{Weights: attentionOnSource(28, 12)}, Dark()))
}

func BenchmarkHeadBars3139(b *testing.B) {
	benchImage(b, HeadBars(nil, attention(1, 1, 3138).Weights[0][0], "long", Dark()))
}

func BenchmarkKVCache3139(b *testing.B) {
	benchImage(b, KVCache(kv(3139, 128, 1, true), kv(3139, 128, 2, false), nil, Dark()))
}

func BenchmarkSVGKVCache3139(b *testing.B) {
	f := KVCache(kv(3139, 128, 1, true), kv(3139, 128, 2, false), nil, Dark())
	var n int
	for b.Loop() {
		s, err := SVG(f, 8*vg.Inch, 5*vg.Inch)
		if err != nil {
			b.Fatal(err)
		}
		n = len(s)
	}
	b.ReportMetric(float64(n)/1e6, "MB")
}
