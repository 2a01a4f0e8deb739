package app

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"loupe/engine/genmodel"
	"loupe/format"
	"loupe/trace"
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
	ppl, ok := stats.Perplexity(u.st.LastRun.Steps)
	if !ok || !strings.Contains(u.stream.Legend(), "Perplexity "+format.Sig2(ppl)) {
		t.Fatalf("legend %q, perplexity %v (%v)", u.stream.Legend(), ppl, ok)
	}
	ps := views.ModelPs(u.st.Tokens, u.st.Steps)
	for i, tok := range u.st.Tokens {
		if tok.Generated != (ps[i] > 0) {
			t.Fatalf("token %d (generated %v) has p %v", i, tok.Generated, ps[i])
		}
	}
	if !menuChecked(u, "Colour written tokens") {
		t.Error("the View menu does not tick the colouring")
	}
	h.generate("The cat", 3)
	if ppl2, _ := stats.Perplexity(u.st.LastRun.Steps); !strings.Contains(u.stream.Legend(), "Perplexity "+format.Sig2(ppl2)) {
		t.Errorf("after the next run the legend says %q, want perplexity %s", u.stream.Legend(), format.Sig2(ppl2))
	}
	// File › Save run as JSON: the run, and its perplexity beside.
	data, err := runJSON(u.st.LastRun)
	if err != nil {
		t.Fatal(err)
	}
	var saved struct {
		Prompt     string       `json:"prompt"`
		Steps      []trace.Step `json:"steps"`
		Perplexity float64      `json:"perplexity"`
	}
	if err := json.Unmarshal(data, &saved); err != nil {
		t.Fatal(err)
	}
	var nll float64
	for _, s := range saved.Steps {
		nll -= math.Log(s.ModelP)
	}
	if want := math.Exp(nll / float64(len(saved.Steps))); saved.Prompt != "The cat" || math.Abs(saved.Perplexity-want) > 1e-9*want {
		t.Errorf("saved run: prompt %q, perplexity %v, want %v from its steps' model_p", saved.Prompt, saved.Perplexity, want)
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
