package lesson

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"loupe/format"
	"loupe/kernels"
	"loupe/trace"
)

// The hand-made trace: "My cat is purple. But a" (7 tokens), 3 layers × 4
// heads, 2 KV heads of 8 numbers; the model is about to write " purple".
// Layer 2 (index 1), head 3 (index 2) puts 0.91 on « purple» (position 3);
// every other head splits its weight between the first token and the rest
// as the table below says, so the expected figures can be worked out by
// hand.
var handTokens = []trace.Token{
	{ID: 11, Text: "My"}, {ID: 12, Text: " cat", Pos: 1}, {ID: 13, Text: " is", Pos: 2}, {ID: 14, Text: " purple", Pos: 3},
	{ID: 15, Text: ".", Pos: 4}, {ID: 16, Text: " But", Pos: 5}, {ID: 17, Text: " a", Pos: 6},
}

// row is a head's weights over the 7 keys: sink on 0, src on 3, the rest
// spread evenly over the 5 others.
func row(sink, src float32) []float32 {
	r := make([]float32, 7)
	rest := (1 - sink - src) / 5
	for i := range r {
		r[i] = rest
	}
	r[0], r[3] = sink, src
	return r
}

// handWeights[l][h] = {sink, src}.
var handWeights = [3][4][2]float32{
	{{0.6, 0.01}, {0.5, 0.02}, {0.7, 0.01}, {0.4, 0.03}},
	{{0.5, 0.10}, {0.3, 0.20}, {0.05, 0.91}, {0.6, 0.05}},
	{{0.4, 0.30}, {0.2, 0.50}, {0.5, 0.20}, {0.8, 0.10}},
}

func handInput(t *testing.T) Input {
	t.Helper()
	att := trace.Attention{QueryPos: 6, Weights: make([][][]float32, 3)}
	for l := range 3 {
		for h := range 4 {
			att.Weights[l] = append(att.Weights[l], row(handWeights[l][h][0], handWeights[l][h][1]))
		}
	}
	mlp := make([]trace.MLP, 3)
	for l := range mlp {
		mlp[l] = trace.MLP{Layer: l, Pos: 6, Values: []float32{0.01, -0.02, 0.6, -0.7, 1.5, -3.25, 0.04, 0.2, 0.9, -1.1}}
	}
	gen := []trace.Step{
		{Pos: 7, Chosen: trace.Candidate{ID: 14, Text: " purple", P: 0.925},
			Top: []trace.Candidate{{ID: 14, Text: " purple", P: 0.925}, {ID: 21, Text: " blue", P: 0.006}, {ID: 12, Text: " cat", P: 0.005}}},
		{Pos: 8, Chosen: trace.Candidate{ID: 12, Text: " cat", P: 0.905}},
		{Pos: 9, Chosen: trace.Candidate{ID: 15, Text: ".", P: 0.688}},
	}
	tokens := slices.Clone(handTokens)
	for i, s := range gen {
		tokens = append(tokens, trace.Token{ID: s.Chosen.ID, Text: s.Chosen.Text, Pos: 7 + i, Generated: true})
	}
	info := trace.ModelInfo{Name: "hand", Path: "/models/hand", Layers: 3, Heads: 4, KVHeads: 2, HeadDim: 8, Hidden: 16,
		Intermediate: 10, Vocab: 100, TiedEmbeddings: true, ParamsEmbedding: 1600, ParamsAttention: 600, ParamsMLP: 480,
		ParamsNorm: 112, WeightBytesPerTok: 6000, OutputBytesPerTok: 3200, KVBytesPerToken: 2 * 3 * 2 * 8 * 4}
	run := &trace.Run{Model: info, Prompt: "My cat is purple. But a", Tokens: tokens, Steps: gen,
		Timing: trace.Timing{PrefillTokens: 7, PrefillSeconds: 0.08, DecodeTokens: 3, DecodeSeconds: 0.72}}
	emb := make([]float32, 16)
	for i := range emb {
		emb[i] = float32(i) / 1000
	}
	return Input{Model: info, Run: run, Inspect: &trace.Inspection{Pos: 6, Attention: att, MLP: mlp, Embedding: emb},
		SourceRow: func(int) []float32 { return emb }}
}

func build(t *testing.T, in Input) *Lesson {
	t.Helper()
	l, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	ids := IDs
	if in.Model.Experts > 0 {
		ids = append(slices.Clone(IDs), Experts)
	}
	if len(l.Chapters) != len(ids) {
		t.Fatalf("%d chapters, want %d", len(l.Chapters), len(ids))
	}
	for i, c := range l.Chapters {
		if c.ID != ids[i] || c.Title == "" || c.Text == "" || c.Figures == nil {
			t.Errorf("chapter %d: %+v", i, c)
		}
		if n := sentences(c.Text); n < 2 || n > 4 {
			t.Errorf("%s: %d sentences, want 2–4: %s", c.ID, n, c.Text)
		}
		if strings.Contains(c.Text, "NaN") || strings.Contains(c.Text, "%!") || strings.Contains(c.Text, "–") {
			t.Errorf("%s: a placeholder or format error: %s", c.ID, c.Text)
		}
	}
	return l
}

// sentences counts sentence ends (". " or a final ".", "!" or "?"),
// skipping decimals and the "…" of a list.
func sentences(s string) int {
	n := 0
	for i, r := range s {
		if (r == '.' || r == '?') && (i == len(s)-1 || s[i+1] == ' ') {
			n++
		}
	}
	return n
}

func contains(t *testing.T, c *Chapter, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(c.Text, p) {
			t.Errorf("%s: %q not in %q", c.ID, p, c.Text)
		}
	}
}

func TestAttentionFindsTheCopiedTokenAndItsHead(t *testing.T) {
	l := build(t, handInput(t))
	c := l.Chapter(Attention)
	fig := c.Figures.(AttentionFigures)
	// The top-1 « purple» is at position 3; the largest weight on it is
	// 0.91, layer index 1, head index 2.
	if fig.QueryPos != 6 || fig.SourcePos != 3 || fig.Layer != 1 || fig.Head != 2 || fig.Share != 0.91 || fig.SourceWhy != "top-1" {
		t.Fatalf("attention figures %+v", fig)
	}
	contains(t, c, "layer 2, head 3 looks at «purple» 91.0 %", "3 tokens earlier", "4 query heads share 2 K/V heads")
	if c.Show.Tab != "Attention" || c.Show.Source != 3 || c.Show.Layer != 1 || c.Show.Head != 2 {
		t.Errorf("show %+v", c.Show)
	}
}

func TestCountFromZero(t *testing.T) {
	in := handInput(t)
	in.FromZero = true
	l := build(t, in)
	contains(t, l.Chapter(Attention), "layer 1, head 2 looks at")
	if f := l.Chapter(Attention).Figures.(AttentionFigures); f.Layer != 1 || f.Head != 2 {
		t.Errorf("JSON indices change with the numbering: %+v", f)
	}
}

func TestStrongestSourceWhenTheTop1IsNotInThePrompt(t *testing.T) {
	in := handInput(t)
	in.Run.Steps[0].Top[0] = trace.Candidate{ID: 99, Text: " green", P: 0.5}
	f := build(t, in).Chapter(Attention).Figures.(AttentionFigures)
	// Means over the 12 heads: position 3 gets (sum of src)/12, every
	// other non-first position (1-sink-src)/5 on average; 3 wins.
	if f.SourcePos != 3 || f.SourceWhy != "strongest" {
		t.Fatalf("%+v", f)
	}
	// Make « cat» stronger in the last layer's every head: it wins.
	for h := range 4 {
		in.Inspect.Attention.Weights[2][h][1] += 0.9
	}
	if f := build(t, in).Chapter(Attention).Figures.(AttentionFigures); f.SourcePos != 1 {
		t.Fatalf("source %d, want 1", f.SourcePos)
	}
}

func TestGridMeansAndSink(t *testing.T) {
	l := build(t, handInput(t))
	g := l.Chapter(Grid).Figures.(GridFigures)
	want := []float64{(0.01 + 0.02 + 0.01 + 0.03) / 4, (0.10 + 0.20 + 0.91 + 0.05) / 4, (0.30 + 0.50 + 0.20 + 0.10) / 4}
	for i, w := range want {
		if g.LayerMeans[i] == nil || math.Abs(*g.LayerMeans[i]-w) > 1e-6 {
			t.Fatalf("layer means %v, want %v", g.LayerMeans, want)
		}
	}
	if g.PeakLayer != 1 || g.FirstAbove5 != 1 {
		t.Errorf("peak %d, first above 5 %%: %d", g.PeakLayer, g.FirstAbove5)
	}
	contains(t, l.Chapter(Grid), "Up to layer 1 it stays under 5 %", "up to 31.5 % at layer 2")
	sink := 0.0
	for _, layer := range handWeights {
		for _, h := range layer {
			sink += float64(h[0])
		}
	}
	sink /= 12
	if s := l.Chapter(Sink).Figures.(SinkFigures); math.Abs(s.MeanShare-sink) > 1e-6 {
		t.Errorf("sink %v, want %v", s.MeanShare, sink)
	}
	contains(t, l.Chapter(Sink), format.Percent(sink)+" of its attention", "«My»")
}

func TestKVCacheFromTheShape(t *testing.T) {
	l := build(t, handInput(t))
	k := l.Chapter(KVCache).Figures.(KVFigures)
	per := int64(2 * 3 * 2 * 8 * 4)
	if k.BytesPerToken != per || k.BytesAt4096 != 4096*per || k.BytesAt32000 != 32000*per || k.NumbersPerToken != 96 {
		t.Fatalf("%+v", k)
	}
	contains(t, l.Chapter(KVCache), "2 × 3 layers × 2 K/V heads × 8 numbers = 96 numbers per token, 384 B", "1.6 MB at 4,096", "12 MB at 32,000")
}

func TestMLPCounts(t *testing.T) {
	l := build(t, handInput(t))
	m := l.Chapter(MLP).Figures.(MLPFigures)
	// |v| sorted: 0.01 0.02 0.04 0.2 0.6 0.7 0.9 1.1 1.5 3.25.
	if m.Layer != 1 || m.Count != 10 || m.Over05 != 6 || m.Over1 != 3 || m.Max != 3.25 || math.Abs(m.MedianAbs-0.65) > 1e-6 {
		t.Fatalf("%+v", m)
	}
	contains(t, l.Chapter(MLP), "half of the 10 values are under 0.65", "6 exceed 0.5, 3 exceed 1", "largest is 3.2", "layer 2")
}

func TestOutputLoopAndTwoTimes(t *testing.T) {
	in := handInput(t)
	l := build(t, in)
	o := l.Chapter(Output).Figures.(OutputFigures)
	if len(o.Top10) != 3 || o.Top10[0].ID != 14 || !o.Tied || o.HeadParams != 1600 || o.Total != 2792 {
		t.Fatalf("%+v", o)
	}
	contains(t, l.Chapter(Output), "«purple» 92.5 %, «blue» 0.6 %", "embedding table a second time", "1,600 parameters out of 2,792")
	contains(t, l.Chapter(Loop), "«purple» 92.5 %, «cat» 90.5 %, «.» 68.8 %", "here 3 tokens")
	tt := l.Chapter(TwoTimes).Figures.(TwoTimesFigures)
	if tt.PrefillSeconds != 0.08 || tt.DecodeSeconds != 0.72 || math.Abs(tt.ReadingShare-0.1) > 1e-9 {
		t.Fatalf("%+v", tt)
	}
	contains(t, l.Chapter(TwoTimes), "7 tokens of the prompt together (the prefill) took 80 ms", "writing 3 tokens", "took 720 ms", "Reading is 10.0 %")
	in.Model.TiedEmbeddings, in.Model.ParamsOutput = false, 1600
	contains(t, build(t, in).Chapter(Output), "separate output table")
}

func TestTimingChaptersSkippedWithoutRuns(t *testing.T) {
	in := handInput(t)
	l := build(t, in)
	for _, id := range []string{ComputeMemory, Conversations, Counterfactual} {
		if l.Chapter(id).Skipped != NeedsTiming {
			t.Errorf("%s: skipped %q", id, l.Chapter(id).Skipped)
		}
	}
	if s := l.Chapter(Thinking).Skipped; s != "" {
		t.Errorf("thinking on a model without a thinking template: skipped %q", s)
	}
	contains(t, l.Chapter(Thinking), "no thinking template")
	in.ThinkingTemplate = true
	if s := build(t, in).Chapter(Thinking).Skipped; s != NeedsTiming {
		t.Errorf("thinking: skipped %q", s)
	}
	heads, err := FetchingHeads(in)
	// Weights on « purple» ≥ 10 %: 0.91, 0.50, 0.30, 0.20, 0.20, 0.10, 0.10.
	want := []trace.Head{{Layer: 1, Head: 2}, {Layer: 2, Head: 1}, {Layer: 2, Head: 0}, {Layer: 1, Head: 1}, {Layer: 2, Head: 2}, {Layer: 1, Head: 0}, {Layer: 2, Head: 3}}
	if err != nil || !slices.Equal(heads, want) {
		t.Errorf("fetching heads %v, want %v", heads, want)
	}
}

func TestTimingChaptersWithRuns(t *testing.T) {
	in := handInput(t)
	in.ThinkingTemplate = true
	in.Model.WeightBytesPerTok = 3.1e9
	in.Extra = &Extra{
		Gold: &trace.Timing{PrefillTokens: 3139, PrefillSeconds: 2.1, DecodeTokens: 100, DecodeSeconds: 7.5},
		Kernels: []KernelRun{{Level: "avx512", PrefillTokens: 3139, PrefillSeconds: 2.1, DecodeTokens: 101, DecodeSeconds: 7.5},
			{Level: "avx2", PrefillTokens: 3139, PrefillSeconds: 12.2, DecodeTokens: 101, DecodeSeconds: 7.3}},
		BandwidthGBs: 46,
		ThinkOn:      &trace.Timing{PrefillTokens: 20, PrefillSeconds: 1, DecodeTokens: 500, DecodeSeconds: 39, ThinkingTokens: 400},
		ThinkOff:     &trace.Timing{PrefillTokens: 20, PrefillSeconds: 1, DecodeTokens: 40, DecodeSeconds: 3},
		Ablated: &Ablation{Heads: []trace.Head{{Layer: 1, Head: 2}}, First: trace.Step{Chosen: trace.Candidate{ID: 21, Text: " blue", P: 0.4},
			Top: []trace.Candidate{{ID: 21, Text: " blue", P: 0.4}, {ID: 14, Text: " purple", P: 0.3}}}},
		Batch: []BatchPoint{{Conversations: 1, DecodeTokS: 4, PerSequenceTokS: 4, BytesPerToken: 3.1e9, MemoryCeilingTokS: 14, ComputeCeilingTokS: 60},
			{Conversations: 8, DecodeTokS: 22.4, PerSequenceTokS: 2.8, BytesPerToken: 0.39e9, MemoryCeilingTokS: 110, ComputeCeilingTokS: 60}},
	}
	l := build(t, in)
	contains(t, l.Chapter(Conversations), "390 MB a token", "22 tokens/s in all instead of 4 (5.6 ×)", "waits 1.4 × longer per token",
		"computation only 60: writing is computation again")
	for _, c := range l.Chapters {
		if c.Skipped != "" {
			t.Errorf("%s skipped: %s", c.ID, c.Skipped)
		}
	}
	tt := l.Chapter(TwoTimes).Figures.(TwoTimesFigures)
	if tt.GoldShare == nil || math.Abs(*tt.GoldShare-2.1/9.6) > 1e-9 {
		t.Errorf("gold share %v", tt.GoldShare)
	}
	contains(t, l.Chapter(TwoTimes), "3,139 tokens read in 2.1 s", "reading is 21.9 %")
	cm := l.Chapter(ComputeMemory).Figures.(ComputeFigures)
	// 3.1 GB × 100 passes / 7.5 s = 41.3 GB/s, 89.9 % of 46.
	if math.Abs(cm.DecodeGBs[0]-3.1e9*100/7.5/1e9) > 1e-9 {
		t.Errorf("decode GB/s %v", cm.DecodeGBs)
	}
	contains(t, l.Chapter(ComputeMemory), "41.3 GB/s read", "With avx2 kernels, reading takes 5.8 × that time and writing 1.0 ×", "46.0 GB/s: writing uses 89.9 % of it, it waits on memory")
	th := l.Chapter(Thinking).Figures.(ThinkingFigures)
	if th.Ratio == nil || math.Abs(*th.Ratio-10) > 1e-9 {
		t.Errorf("thinking ratio %v", th.Ratio)
	}
	contains(t, l.Chapter(Thinking), "writes 500 tokens, 400 of them draft, in 40 s", "10.0 × longer")
	cf := l.Chapter(Counterfactual).Figures.(CounterfactualFigures)
	if cf.PAfter != 0.3 || math.Abs(cf.DeltaP-(0.3-0.925)) > 1e-12 || cf.NewTop1.ID != 21 {
		t.Errorf("%+v", cf)
	}
	contains(t, l.Chapter(Counterfactual), "from 92.5 % to 30.0 % (Δp -62.5 points)", "now writes «blue»", "layer:head 2:3")
}

func TestDeltaNetLayersHaveAFixedState(t *testing.T) {
	in := handInput(t)
	// Layers 1 and 2 (from 1) are Gated DeltaNet layers: no attention map.
	in.Model.LayerTypes = []string{"linear_attention", "linear_attention", "full_attention"}
	in.Model.StateBytes = 4096
	in.Model.KVBytesPerToken = 2 * 1 * 2 * 8 * 4 // the engine counts the layers with attention
	in.Inspect.Attention.Weights[0], in.Inspect.Attention.Weights[1] = nil, nil
	l := build(t, in)
	a := l.Chapter(Attention).Figures.(AttentionFigures)
	if a.Layer != 2 || a.Head != 1 || a.Share != 0.5 || a.AttnLayers != 1 {
		t.Fatalf("%+v", a)
	}
	g := l.Chapter(Grid).Figures.(GridFigures)
	if g.LayerMeans[0] != nil || g.LayerMeans[1] != nil || g.LayerMeans[2] == nil {
		t.Errorf("layer means %v: want null for the DeltaNet layers", g.LayerMeans)
	}
	k := l.Chapter(KVCache).Figures.(KVFigures)
	if k.LayersWithKV != 1 || k.BytesPerToken != 2*1*2*8*4 {
		t.Errorf("%+v", k)
	}
	contains(t, l.Chapter(KVCache), "Only 1 of the 3 layers keep one", "fixed state of 4.1 KB")
	contains(t, l.Chapter(Grid), "The 2 Gated DeltaNet layers have no attention map")
	if _, err := json.Marshal(l); err != nil {
		t.Fatal(err)
	}
}

func TestBuildRefusesAnEmptyRun(t *testing.T) {
	in := handInput(t)
	in.Run.Steps = nil
	if _, err := Build(in); err == nil {
		t.Fatal("a run without a generated token built a lesson")
	}
	if _, err := Build(Input{}); err == nil {
		t.Fatal("no run built a lesson")
	}
}

// The window builds the lesson from the run's own captures: the same
// chapters as from an inspection holding the same numbers.
func TestInspectionFromRun(t *testing.T) {
	in := handInput(t)
	r := in.Run
	r.Attention = []trace.Attention{{QueryPos: 2, Weights: [][][]float32{}}, in.Inspect.Attention}
	for l := 2; l >= 0; l-- { // out of order, and a generated position beside
		r.MLP = append(r.MLP, in.Inspect.MLP[l], trace.MLP{Layer: l, Pos: 7})
	}
	got, err := InspectionFromRun(r, in.SourceRow)
	if err != nil {
		t.Fatal(err)
	}
	if got.Pos != 6 || got.Attention.QueryPos != 6 || len(got.MLP) != 3 || got.MLP[1].Pos != 6 || got.MLP[1].Layer != 1 {
		t.Fatalf("%+v", got)
	}
	a, b := build(t, in), build(t, Input{Model: in.Model, Run: r, Inspect: got, SourceRow: in.SourceRow})
	for i := range a.Chapters {
		if a.Chapters[i].Text != b.Chapters[i].Text {
			t.Errorf("%s: %q\nfrom the run: %q", a.Chapters[i].ID, a.Chapters[i].Text, b.Chapters[i].Text)
		}
	}
	r.MLP = r.MLP[:2]
	if _, err := InspectionFromRun(r, nil); err == nil {
		t.Error("a run without every layer's MLP gave an inspection")
	}
}

// Plan names the runs and their time from the prompt's own rates.
func TestPlanEstimatesFromTheRunsRates(t *testing.T) {
	in := handInput(t) // prefill 7 tokens in 0.08 s, decode 3 in 0.72 s
	opt := MeasureOptions{Settings: trace.Settings{MaxTokens: 10}}
	gold := 100/87.5 + 10/(3/0.72)
	want := gold * float64(1+2*(len(levels(kernels.Current()))-1))
	want += 10 / 87.5 // the prompt again, its 10 tokens read
	if got := estimate(in, opt, 100); math.Abs(got-want) > 1e-9 {
		t.Errorf("estimate %v, want %v", got, want)
	}
	p := Plan(in, opt, 100)
	if !strings.Contains(p, "The Gold-Bug passage (100 tokens) read and 10 tokens written with") || !strings.Contains(p, "about "+format.Duration(format.Round2(want))) {
		t.Errorf("plan %q", p)
	}
	in.ThinkingTemplate = true
	if got := estimate(in, opt, 100); math.Abs(got-want-(2048+10)/(3/0.72)) > 1e-9 || !strings.Contains(Plan(in, opt, 100), "thinking on and off") {
		t.Errorf("with thinking: %v", got)
	}
}

// Below 20 % on the first token the sink chapter says the model leans on
// it little instead of calling the share large.
func TestSmallSink(t *testing.T) {
	in := handInput(t)
	for l := range in.Inspect.Attention.Weights {
		for h := range in.Inspect.Attention.Weights[l] {
			in.Inspect.Attention.Weights[l][h] = row(0.05, handWeights[l][h][1])
		}
	}
	c := build(t, in).Chapter(Sink)
	if s := c.Figures.(SinkFigures).MeanShare; math.Abs(s-0.05) > 1e-6 {
		t.Fatalf("sink %v, want 5 %%", s)
	}
	contains(t, c, "5.0 % of its attention", "this model leans on it little")
	if strings.Contains(c.Text, "draws a large share even") && !strings.Contains(c.Text, "In many models") {
		t.Errorf("a 5 %% sink called large: %s", c.Text)
	}
}

// An MoE model's lesson ends with the experts chapter; a dense model's has
// none. The hand model: 3 MoE layers of 4 experts, k = 2, an expert of 100
// bytes; its MLP parameters 480 in all, 240 read per token.
func TestExpertsChapter(t *testing.T) {
	if build(t, handInput(t)).Chapter(Experts) != nil {
		t.Fatal("a dense model has an experts chapter")
	}
	in := handInput(t)
	in.Model.Experts, in.Model.ExpertsPerToken, in.Model.MoELayers, in.Model.ExpertBytes, in.Model.ParamsMLPActive = 4, 2, 3, 100, 240
	r := func(l int, ids ...int) trace.Routing { return trace.Routing{Layer: l, IDs: ids} }
	steps := in.Run.Steps
	steps[0].Experts = []trace.Routing{r(0, 0, 1), r(1, 2, 3), r(2, 0, 3)}
	steps[1].Experts = []trace.Routing{r(0, 1, 2), r(1, 2, 3), r(2, 3, 1)}
	steps[2].Experts = []trace.Routing{r(0, 0, 1), r(1, 3, 2), r(2, 0, 1)}
	l := build(t, in)
	if len(l.Chapters) != len(IDs)+1 || l.Chapters[len(IDs)].ID != Experts || Index(Experts) != len(IDs) {
		t.Fatalf("%d chapters, the last %q", len(l.Chapters), l.Chapters[len(l.Chapters)-1].ID)
	}
	c := l.Chapter(Experts)
	fig := c.Figures.(ExpertsFigures)
	// Active: 2792 in all − 480 + 240; bytes: 6000 read, 6000 + 3 layers ×
	// 2 idle experts × 100 for the dense model. Touched after 3 tokens:
	// layer 0 {0,1,2}, layer 1 {2,3}, layer 2 {0,1,3}: 8 of 12.
	if fig.Active != 2552 || fig.Total != 2792 || fig.BytesRead != 6000 || fig.BytesDense != 6600 || fig.PerToken != 2 ||
		fig.MoELayers != 3 || math.Abs(fig.Touched-8.0/12) > 1e-12 || math.Abs(fig.UniformShare-(1-1.0/8)) > 1e-12 {
		t.Errorf("figures %+v", fig)
	}
	for _, want := range []string{"read 2 of 4 experts per layer", "«purple»", "2,552", "2,792", format.Bytes(6000), format.Bytes(6600), "66.7 %", "87.5 %"} {
		if !strings.Contains(c.Text, want) {
			t.Errorf("text lacks %q: %s", want, c.Text)
		}
	}
	if c.Show.Tab != "Experts" || c.Show.Query != 7 {
		t.Errorf("show %+v", c.Show)
	}
}

// An MoE model's MLP chapter speaks of experts, not of one activation it
// does not have, and the window's inspection does without MLP values.
func TestMoEMLPChapter(t *testing.T) {
	in := handInput(t)
	in.Model.Experts, in.Model.ExpertsPerToken, in.Model.MoELayers = 4, 2, 3
	in.Inspect.MLP = nil
	c := build(t, in).Chapter(MLP)
	if !strings.Contains(c.Text, "split into 4 experts") || !strings.Contains(c.Text, "only 2 of them") || c.Show.Tab != "Experts" {
		t.Errorf("MLP chapter of an MoE model: %q (tab %q)", c.Text, c.Show.Tab)
	}
	run := *in.Run
	run.Model = in.Model
	run.Attention = []trace.Attention{in.Inspect.Attention}
	if _, err := InspectionFromRun(&run, nil); err != nil {
		t.Errorf("an MoE run without MLP values: %v", err)
	}
	run.Model.Experts = 0
	if _, err := InspectionFromRun(&run, nil); err == nil {
		t.Error("a dense run without MLP values should be refused")
	}
}

// An MoE model's lesson never says a token reads every parameter: the
// summary counts the parameters a token uses (shared weights and k of n
// experts per MoE layer) beside the total, and the timing chapters name
// what a step reads. The hand model as in TestExpertsChapter.
func TestMoEReadsOnlyItsExperts(t *testing.T) {
	in := handInput(t)
	in.Model.Experts, in.Model.ExpertsPerToken, in.Model.MoELayers, in.Model.ExpertBytes, in.Model.ParamsMLPActive = 4, 2, 3, 100, 240
	l := build(t, in)
	s := l.Chapter(Summary)
	if fig := s.Figures.(SummaryFigures); fig.Params != 2792 || fig.ParamsRead != 2552 {
		t.Errorf("summary figures %+v, want 2,792 parameters, 2,552 read", fig)
	}
	contains(t, s, "the 2,552 parameters it uses (of 2,792: the shared weights and 2 of the 4 experts of each MoE layer)")
	contains(t, l.Chapter(TwoTimes), "reads the shared weights and the 2 of 4 experts its router chose in each MoE layer again")
	contains(t, l.Chapter(ComputeMemory), "reads the shared weights and the 2 of 4 experts its router chose in each MoE layer once")
	for _, c := range l.Chapters {
		if strings.Contains(c.Text, "every weight") || strings.Contains(c.Text, "whole model") || strings.Contains(c.Text, "each one the 2,792 parameters") {
			t.Errorf("%s: says a token reads everything: %s", c.ID, c.Text)
		}
	}
	dense := build(t, handInput(t))
	contains(t, dense.Chapter(Summary), "each one the 2,792 parameters, ")
	contains(t, dense.Chapter(TwoTimes), "reads the whole model again")
}

// The lesson names the model as people know it; its path is kept apart.
func TestLessonNamesTheModel(t *testing.T) {
	in := handInput(t)
	in.Model.Name, in.Model.Path = "Qwen/Qwen2.5-1.5B", "/c/hub/models--Qwen--Qwen2.5-1.5B/snapshots/abc123"
	l := build(t, in)
	if l.Model != "Qwen/Qwen2.5-1.5B" || l.ModelPath != in.Model.Path {
		t.Errorf("model %q, path %q", l.Model, l.ModelPath)
	}
}
