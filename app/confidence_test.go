package app

import (
	"path/filepath"
	"strings"
	"testing"

	"loupe/engine/genmodel"
	"loupe/format"
	"loupe/trace/stats"
	"loupe/views"
)

// View › Colour written tokens by probability colours the written tokens
// by the model's p of each, says so under the stream with the run's
// perplexity, follows the next run, and turns off again.
func TestConfidenceColouring(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := genmodel.Write(dir, "tiny", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	h := engineHarness(t, dir)
	u := h.u
	h.generate("Once upon a time", 5)
	if u.stream.Legend() != "" {
		t.Fatal("a legend before the colouring was asked for")
	}
	onUI(func() { u.setConfidence(true) })
	ppl, ok := stats.Perplexity(u.lastRun.Steps)
	if !ok || !strings.Contains(u.stream.Legend(), "Perplexity "+format.Sig2(ppl)) {
		t.Fatalf("legend %q, perplexity %v (%v)", u.stream.Legend(), ppl, ok)
	}
	ps := views.ModelPs(u.tokens, u.steps)
	for i, tok := range u.tokens {
		if tok.Generated != (ps[i] > 0) {
			t.Fatalf("token %d (generated %v) has p %v", i, tok.Generated, ps[i])
		}
	}
	if !menuChecked(u, "Colour written tokens") {
		t.Error("the View menu does not tick the colouring")
	}
	h.generate("The cat", 3)
	if ppl2, _ := stats.Perplexity(u.lastRun.Steps); !strings.Contains(u.stream.Legend(), "Perplexity "+format.Sig2(ppl2)) {
		t.Errorf("after the next run the legend says %q, want perplexity %s", u.stream.Legend(), format.Sig2(ppl2))
	}
	onUI(func() { u.setConfidence(false) })
	if u.stream.Legend() != "" || u.stream.Confidence() || menuChecked(u, "Colour written tokens") {
		t.Error("the colouring stayed on")
	}
}

// menuChecked reports whether the View menu's item starting with label is ticked.
func menuChecked(u *UI, label string) bool {
	for _, m := range u.win.MainMenu().Items {
		for _, it := range m.Items {
			if strings.HasPrefix(it.Label, label) {
				return it.Checked
			}
		}
	}
	return false
}
