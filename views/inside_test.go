package views

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"loupe/trace"
	"loupe/viz"
)

func qwenInfo() trace.ModelInfo {
	return trace.ModelInfo{Layers: 28, Heads: 12, KVHeads: 2, HeadDim: 128, Hidden: 1536, Vocab: 151936, MaxPositions: 32768,
		KVBytesPerToken: 28 * 2 * 2 * 128 * 4, WeightBytesPerTok: 3_090_000_000, TiedEmbeddings: true}
}

func TestEmbeddingPanel(t *testing.T) {
	newTestApp(t)
	p := NewEmbeddingPanel()
	w := test.NewWindow(p)
	defer w.Close()
	row := make([]float32, 1536)
	row[0], row[1], row[2] = 0.017, -0.004, -0.008
	p.Display(trace.Token{ID: 24503, Text: " purple", Pos: 3}, row, 151936, true)
	if p.Shape.Text != "row 24,503 of 151,936 × 1,536 (the row is the token's id)" || !strings.HasPrefix(p.First.Text, "0.017, -0.004, -0.008") ||
		!strings.HasPrefix(p.Tied.Text, "tied") || p.Figure() == nil {
		t.Errorf("shape %q first %q tied %q", p.Shape.Text, p.First.Text, p.Tied.Text)
	}
	p.Display(trace.Token{ID: 7}, nil, 10, false)
	if !strings.Contains(p.Title.Text, "No embedding row") {
		t.Errorf("empty row: %q", p.Title.Text)
	}
}

// The article's numbers: 14,336 numbers a token, 29 KB in bf16, 117 MB at
// 4,096 tokens and almost a gigabyte at 32,000.
func TestKVCachePanelSizes(t *testing.T) {
	newTestApp(t)
	p := NewKVCachePanel()
	w := test.NewWindow(p)
	defer w.Close()
	p.SetModel(qwenInfo())
	if l, g := p.Chosen(); l != 18 || g != 0 || p.Layer.Selected != "19" {
		t.Errorf("default layer %d (%q), head %d: want the article's layer 19", l, p.Layer.Selected, g)
	}
	for _, want := range []string{"14,336 numbers", "57 KB per token", "29 KB"} {
		if !strings.Contains(p.Sizes.Text, want) {
			t.Errorf("sizes %q lack %q", p.Sizes.Text, want)
		}
	}
	for _, want := range []string{"at 4,096 tokens: 235 MB", "(117 MB in bf16)", "at 32,000 tokens: 1.8 GB", "(918 MB in bf16)", "at 32,768 tokens", "maximum context"} {
		if !strings.Contains(p.Totals.Text, want) {
			t.Errorf("totals %q lack %q", p.Totals.Text, want)
		}
	}
	kv := trace.KVRows{Layer: 18, KVHead: 1}
	for i := range 17 {
		kv.Keys = append(kv.Keys, make([]float32, 128))
		kv.Values = append(kv.Values, make([]float32, 128))
		kv.Keys[i][5] = float32(i)
	}
	p.Display(tokens(17), kv)
	if r, c := p.Keys.Dims(); r != 17 || c != 128 || !strings.Contains(p.Title.Text, "layer 19, K/V head 2") {
		t.Fatalf("keys %d × %d, title %q", r, c, p.Title.Text)
	}
	p.Keys.Resize(fyne.NewSize(384, 170))
	p.Keys.OnHover(16, 5, 16)
	if !strings.Contains(p.Hover.Text, "token 16") || !strings.Contains(p.Hover.Text, "key number 5: 16.0000") {
		t.Errorf("hover %q", p.Hover.Text)
	}
	p.SetLive(17, true)
	if !strings.Contains(p.Live.Text, "17 tokens: 975 KB") {
		t.Errorf("live %q", p.Live.Text)
	}
}

func TestLogitLensPanel(t *testing.T) {
	newTestApp(t)
	p := NewLogitLensPanel()
	w := test.NewWindow(p)
	defer w.Close()
	lens := make([]trace.LensLayer, 4)
	for l := range lens {
		top := trace.Candidate{ID: 1, Text: " the", P: 0.3}
		if l >= 2 {
			top = trace.Candidate{ID: 7, Text: " purple", P: 0.6}
		}
		lens[l] = trace.LensLayer{Layer: l, Top: []trace.Candidate{top, {ID: 2, Text: " a", P: 0.1}}}
	}
	p.Display(trace.Token{Text: " a", Pos: 16}, lens, 7)
	if !strings.Contains(p.Lead.Text, "first leads at layer 3 and stays ahead") || p.Figure() == nil {
		t.Errorf("lead %q", p.Lead.Text)
	}
	p.Waiting("busy")
	if _, nothing := viz.IsNoData(p.Figure()); !nothing || p.Title.Text != "busy" {
		t.Error("waiting still shows a lens")
	}
}

func TestSamplerPanel(t *testing.T) {
	newTestApp(t)
	p := NewSamplerPanel()
	w := test.NewWindow(p)
	defer w.Close()
	toks := tokens(4)
	st := &trace.SamplerStages{Drawn: 2, U: 0.4, Candidates: []trace.Candidate{{ID: 1, Text: "x", P: 0.6}, {ID: 2, Text: "y", P: 0.4}},
		Stages: []trace.SamplerStage{{Name: "penalties", Kept: 10, P: []float64{0.5, 0.3}}, {Name: "temperature", On: true, Kept: 10, P: []float64{0.55, 0.35}},
			{Name: "top-k", On: true, Kept: 2, P: []float64{0.6, 0.4}}, {Name: "top-p", Kept: 2, P: []float64{0.6, 0.4}}, {Name: "min-p", Kept: 2, P: []float64{0.6, 0.4}}}}
	steps := []trace.Step{{Pos: 3, Chosen: trace.Candidate{ID: 2, Text: "y"}, Stages: st}}
	p.Display(toks, steps, 3, trace.Settings{Temperature: 0.7, TopK: 2, Seed: 5})
	if !strings.Contains(p.Title.Text, "Sampling at position 3") || !strings.Contains(p.Title.Text, "seed 5") || p.Figure() == nil {
		t.Errorf("title %q", p.Title.Text)
	}
	if !strings.Contains(DistributionNote(steps[0]), "after the penalties, temperature, top-k, top-p and min-p") {
		t.Errorf("note %q", DistributionNote(steps[0]))
	}
	st.Greedy, st.Stages = true, st.Stages[:1]
	p.Display(toks, steps, 3, trace.Settings{})
	if !strings.Contains(p.Title.Text, "Greedy decoding") || !strings.Contains(p.Title.Text, "Nothing is drawn") {
		t.Errorf("greedy title %q", p.Title.Text)
	}
	p.Display(toks, nil, 1, trace.Settings{})
	if why, ok := viz.IsNoData(p.Figure()); p.figure() != nil || !ok || why == "" {
		t.Error("a figure without stages")
	}
}

// TestNextTokenSampledShowsModelAndSampler: with sampling on, the bars are
// the model's own probabilities and each value says which is which; the
// sampler's renormalised 100 % is not passed off as the model's.
func TestNextTokenSampledShowsModelAndSampler(t *testing.T) {
	newTestApp(t)
	p := NewNextTokenPanel()
	toks := tokens(4)
	toks[3].Generated = true
	st := &trace.SamplerStages{Drawn: 7, U: 0.4, Candidates: []trace.Candidate{{ID: 7, Text: " purple", P: 1}, {ID: 8, Text: " red", P: 0}},
		Stages: []trace.SamplerStage{{Name: "penalties", Kept: 100, P: []float64{0.675, 0.2}}, {Name: "temperature", On: true, Kept: 100, P: []float64{0.8, 0.15}},
			{Name: "top-k", On: true, Kept: 1, P: []float64{1, 0}}}}
	step := trace.Step{Pos: 3, Chosen: trace.Candidate{ID: 7, Text: " purple", P: 1},
		Top: []trace.Candidate{{ID: 7, Text: " purple", P: 1}}, Stages: st}
	p.Display(toks, []trace.Step{step}, 3)
	if !strings.Contains(p.Title.Text, "(model 67.5 %, sampler 100 %)") {
		t.Errorf("title %q, want the model's 67.5 %% and the sampler's 100 %%, labelled", p.Title.Text)
	}
	if r := p.Bars.Row(0); r.Segments[0] != 0.675 || r.Value != "model 67.5 % · sampler 100 %  id 7" {
		t.Errorf("bar %+v, want the model's probability as the bar and both labelled", r)
	}
	if !strings.Contains(p.Read.Text, "model's own probability") || !strings.Contains(p.Read.Text, "renormalised") {
		t.Errorf("caption %q", p.Read.Text)
	}
	// Greedy: the model's distribution is the one used; it is labelled so.
	st.Greedy = true
	p.Display(toks, []trace.Step{step}, 3)
	if !strings.Contains(p.Title.Text, "(model 100 %)") || strings.Contains(p.Title.Text, "sampler") {
		t.Errorf("greedy title %q", p.Title.Text)
	}
}
