package views

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"loupe/trace"
)

// BenchmarkTokenStreamSetTokens is the UI-thread cost of showing the
// article's long prompt (3,139 tokens): measure every chip, wrap, lay out.
func BenchmarkTokenStreamSetTokens(b *testing.B) {
	test.NewTempApp(b)
	s := NewTokenStream()
	w := test.NewWindow(s)
	defer w.Close()
	w.Resize(fyne.NewSize(1100, 300))
	toks := tokens(3139)
	b.ResetTimer()
	for range b.N {
		s.SetTokens(toks)
	}
}

// BenchmarkAttentionDisplay is one redraw of the attention panel for
// Qwen2.5-1.5B (28 layers × 12 heads) at the end of a 3,139-token prompt.
func BenchmarkAttentionDisplay(b *testing.B) {
	test.NewTempApp(b)
	const L, H, T = 28, 12, 3139
	a := trace.Attention{QueryPos: T - 1, Weights: make([][][]float32, L)}
	for l := range a.Weights {
		a.Weights[l] = make([][]float32, H)
		for h := range a.Weights[l] {
			w := make([]float32, T)
			for k := range w {
				w[k] = float32((k*31+l*7+h)%97) / (97 * T / 2)
			}
			a.Weights[l][h] = w
		}
	}
	p := NewAttentionPanel()
	w := test.NewWindow(p)
	defer w.Close()
	w.Resize(fyne.NewSize(1100, 600))
	toks := tokens(T)
	info := trace.ModelInfo{Layers: L, Heads: H, KVHeads: 2}
	b.ResetTimer()
	for range b.N {
		p.Display(info, toks, []trace.Attention{a}, T-1, -1)
	}
}
