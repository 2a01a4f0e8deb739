package stats

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"loupe/trace"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// att is a 2-layer × 2-head attention of query 2 over keys 0..2, written
// out so every expected value below can be added up by hand.
var att = trace.Attention{QueryPos: 2, Weights: [][][]float32{
	{{0.5, 0.25, 0.25}, {0.75, 0.125, 0.125}},
	{{0.25, 0.5, 0.25}, {0.5, 0, 0.5}},
}}

func TestSourceGridAndMeans(t *testing.T) {
	g := SourceGrid(att, 0)
	if want := [][]float64{{0.5, 0.75}, {0.25, 0.5}}; !reflect.DeepEqual(g, want) {
		t.Fatalf("SourceGrid = %v, want %v", g, want)
	}
	// A key after the query gets no attention (causal): 0, not a gap.
	if g := SourceGrid(att, 5); !reflect.DeepEqual(g, [][]float64{{0, 0}, {0, 0}}) {
		t.Errorf("SourceGrid(5) = %v", g)
	}
	if m := RowMeans(g); !(near(m[0], 0.625) && near(m[1], 0.375)) {
		t.Errorf("RowMeans = %v, want [0.625 0.375]", m)
	}
	// (0.5+0.75+0.25+0.5)/4
	if s := SinkShare(att); !near(s, 0.5) {
		t.Errorf("SinkShare = %v, want 0.5", s)
	}
	// (0.25+0.125+0.5+0)/4
	if s := SourceShare(att, 1); !near(s, 0.21875) {
		t.Errorf("SourceShare(1) = %v, want 0.21875", s)
	}
	if s := SinkShare(trace.Attention{}); !math.IsNaN(s) {
		t.Errorf("SinkShare of nothing = %v, want NaN", s)
	}
}

// A hybrid's DeltaNet layer has no heads: its mean is NaN (no value) and
// it does not pull the sink share of the other layers down.
func TestMeansSkipEmptyAndNaN(t *testing.T) {
	g := [][]float32{{0.25, 0.5}, {}, {float32(math.NaN()), 0.75}}
	m := RowMeans(g)
	if !near(m[0], 0.375) || !math.IsNaN(m[1]) || !near(m[2], 0.75) {
		t.Errorf("RowMeans = %v, want [0.375 NaN 0.75]", m)
	}
	if v := GridMean(g); !near(v, 0.5) { // (0.25+0.5+0.75)/3
		t.Errorf("GridMean = %v, want 0.5", v)
	}
	hybrid := trace.Attention{QueryPos: 1, Weights: [][][]float32{{{0.75, 0.25}}, nil, {{0.5, 0.5}}}}
	if s := SinkShare(hybrid); !near(s, 0.625) {
		t.Errorf("hybrid SinkShare = %v, want 0.625", s)
	}
}

func TestStrongestSource(t *testing.T) {
	// Keys 1 and 2 exclude the sink (0) and the query (3): key 2 sums
	// 0.3+0.1 = 0.4 against key 1's 0.1+0.2 = 0.3.
	a := trace.Attention{QueryPos: 3, Weights: [][][]float32{{{0.5, 0.1, 0.3, 0.1}}, {{0.6, 0.2, 0.1, 0.1}}}}
	if s := StrongestSource(a); s != 2 {
		t.Errorf("StrongestSource = %d, want 2", s)
	}
	tie := trace.Attention{QueryPos: 3, Weights: [][][]float32{{{0.5, 0.2, 0.2, 0.1}}}}
	if s := StrongestSource(tie); s != 1 {
		t.Errorf("tie: StrongestSource = %d, want the earlier key 1", s)
	}
	if s := StrongestSource(trace.Attention{QueryPos: 1}); s != 0 {
		t.Errorf("no candidate: %d", s)
	}
}

func TestScaleMax(t *testing.T) {
	for _, c := range []struct {
		g    [][]float64
		want float64
	}{
		{[][]float64{{0.01, 0.02}}, 0.05},
		{[][]float64{{0.15}}, 0.15}, // not 0.2: 0.15·20 is 3.0000000000000004
		{[][]float64{{0.151, math.NaN()}}, 0.2},
		{[][]float64{{1.0000001}}, 1},
		{nil, 0.05},
		{[][]float64{{0.12, 0.31}, {math.NaN(), 0}}, 0.35},
	} {
		if got := ScaleMax(c.g); !near(got, c.want) {
			t.Errorf("ScaleMax(%v) = %v, want %v", c.g, got, c.want)
		}
	}
}

func TestTopK(t *testing.T) {
	w := []float32{0.1, 0.4, 0.1, float32(math.NaN()), 0.3, 0.1}
	top, rest := TopK(w, 3)
	// 0.4 at 1, 0.3 at 4, then the tie of 0.1 goes to position 0; the rest
	// is 0.1 + 0.1 + 0 (NaN counts as nothing).
	if want := []Share{{1, float64(float32(0.4))}, {4, float64(float32(0.3))}, {0, float64(float32(0.1))}}; !reflect.DeepEqual(top, want) {
		t.Errorf("TopK = %v, want %v", top, want)
	}
	if !near(rest, 2*float64(float32(0.1))) {
		t.Errorf("rest = %v, want 0.2", rest)
	}
	if top, rest := TopK(w[:2], 9); len(top) != 2 || rest != 0 {
		t.Errorf("k > len: %v %v", top, rest)
	}
}

func TestTopHeadsDiffMaxAbs(t *testing.T) {
	g := [][]float64{{0.1, 0.7}, {0.7, math.NaN()}, {0.3, 0.2}}
	want := []trace.Head{{Layer: 0, Head: 1}, {Layer: 1, Head: 0}, {Layer: 2, Head: 0}}
	if got := TopHeads(g, 3); !reflect.DeepEqual(got, want) {
		t.Errorf("TopHeads = %v, want %v", got, want)
	}
	a := [][]float64{{0.5, 0.25}, {0.125}}
	b := [][]float64{{0.25, 0.75}}
	d := GridDiff(a, b)
	if want := [][]float64{{-0.25, 0.5}, {0}}; !reflect.DeepEqual(d, want) {
		t.Errorf("GridDiff = %v, want %v", d, want)
	}
	if m := MaxAbs([][]float64{{-0.6, 0.5}, {math.NaN()}}); m != 0.6 {
		t.Errorf("MaxAbs = %v, want 0.6", m)
	}
}

func TestRandomHeads(t *testing.T) {
	a, b := RandomHeads(4, 3, 5, 7), RandomHeads(4, 3, 5, 7)
	if !reflect.DeepEqual(a, b) || len(a) != 5 {
		t.Fatalf("same seed, other heads: %v %v", a, b)
	}
	if c := RandomHeads(4, 3, 5, 8); reflect.DeepEqual(a, c) {
		t.Errorf("seeds 7 and 8 drew the same heads %v", a)
	}
	seen := map[trace.Head]bool{}
	for _, h := range RandomHeads(4, 3, 99, 1) {
		if seen[h] || h.Layer < 0 || h.Layer >= 4 || h.Head < 0 || h.Head >= 3 {
			t.Fatalf("head %v repeated or out of range", h)
		}
		seen[h] = true
	}
	if len(seen) != 12 {
		t.Errorf("n > heads: %d distinct, want all 12", len(seen))
	}
}

func toks(ids ...int) []trace.Token {
	out := make([]trace.Token, len(ids))
	for i, id := range ids {
		out[i] = trace.Token{ID: id}
	}
	return out
}

func TestAlign(t *testing.T) {
	// "The cat sat" → "The dog sat", then two generated tokens each.
	a, b := toks(1, 2, 3, 10, 11), toks(1, 5, 3, 10, 12)
	al := Align(a, b, 3, 3)
	if !al.Substituted || al.Same || al.ChangedA != [2]int{1, 2} || !reflect.DeepEqual(al.AtoB, []int{0, 1, 2, 3, 4}) {
		t.Errorf("substitution: %+v", al)
	}
	// One token became two: only the common start and end pair up.
	a, b = toks(1, 2, 3, 9), toks(1, 5, 6, 3, 9)
	al = Align(a, b, 3, 4)
	if al.Substituted || !reflect.DeepEqual(al.AtoB, []int{0, -1, 3, 4}) || !reflect.DeepEqual(al.BtoA, []int{0, -1, -1, 2, 3}) {
		t.Errorf("shift: %+v", al)
	}
	if al := Align(toks(1, 2), toks(1, 2), 2, 2); !al.Same {
		t.Errorf("same prompt: %+v", al)
	}
	if d := FirstDivergence(toks(1, 2, 3), toks(1, 2, 4)); d != 2 {
		t.Errorf("FirstDivergence = %d", d)
	}
	if d := FirstDivergence(toks(1, 2), toks(1, 2, 3)); d != 2 {
		t.Errorf("prefix: FirstDivergence = %d", d)
	}
	if d := FirstDivergence(toks(1), toks(1)); d != -1 {
		t.Errorf("same: FirstDivergence = %d", d)
	}
}

func TestDeltaAt(t *testing.T) {
	purple := trace.Candidate{ID: 7, Text: " purple", P: 0.903}
	a := &trace.Run{Steps: []trace.Step{{Pos: 3, Chosen: purple}}}
	b := &trace.Run{Steps: []trace.Step{{Pos: 4, Chosen: trace.Candidate{ID: 8, P: 0.5},
		Top: []trace.Candidate{{ID: 8, P: 0.5}, {ID: 7, P: 0.25}}}}}
	d := DeltaAt(a, b, 3, 4)
	if !d.HasA || !d.HasB || !d.InB || d.PB != 0.25 || !d.Diverged || d.ChosenB.ID != 8 || d.Token != purple {
		t.Errorf("DeltaAt = %+v", d)
	}
	if d := DeltaAt(a, b, 3, 9); d.HasB || d.InB {
		t.Errorf("no step in B: %+v", d)
	}
	if _, ok := ProbOf(b.Steps[0], 99); ok {
		t.Error("ProbOf found an unrecorded token")
	}
}

func TestMLP(t *testing.T) {
	v := []float32{0.05, -0.6, 1.5, float32(math.NaN()), -3.3, 0.7, 0.02, 0.5}
	// |v| sorted: 0.02 0.05 0.5 0.6 0.7 1.5 3.3 → median 0.6; above 0.5:
	// 0.6 0.7 1.5 3.3; above 1: 1.5 3.3.
	s := SummarizeMLP(v)
	if s.N != 7 || !near(s.MedianAbs, float64(float32(0.6))) || s.Above05 != 4 || s.Above1 != 2 || !near(s.MaxAbs, float64(float32(3.3))) {
		t.Errorf("SummarizeMLP = %+v", s)
	}
	if s := SummarizeMLP([]float32{1, -2}); s.MedianAbs != 1.5 {
		t.Errorf("even median = %v", s.MedianAbs)
	}
	got := LargestAbs([]float32{0.1, -3, 2, -0.25, 0.05, 1}, 4)
	if want := []float64{2, 1, -0.25, -3}; !reflect.DeepEqual(got, want) {
		t.Errorf("LargestAbs = %v, want %v", got, want)
	}
}

func TestModelSizes(t *testing.T) {
	m := trace.ModelInfo{ParamsEmbedding: 300, ParamsAttention: 200, ParamsMLP: 400, ParamsNorm: 100,
		TiedEmbeddings: true, Layers: 2, KVHeads: 2, HeadDim: 4}
	if n := TotalParams(m); n != 1000 {
		t.Errorf("TotalParams = %d", n)
	}
	split := ParamSplit(m)
	if len(split) != 4 || split[0].Name != "embedding" || split[0].Of != 0.3 || split[3].Of != 0.1 {
		t.Errorf("ParamSplit = %+v", split)
	}
	if parts := ParamParts(m); len(parts) != 6 || parts[5].Params != 0 {
		t.Errorf("ParamParts = %+v", parts)
	}
	// Tied: the head is the embedding table, 300 of 1,000 parameters.
	if h, tot, s := OutputReadShare(m); h != 300 || tot != 1000 || s != 0.3 {
		t.Errorf("OutputReadShare = %d %d %v", h, tot, s)
	}
	m.WeightBytesPerTok, m.OutputBytesPerTok = 4000, 1000
	if _, _, s := OutputReadShare(m); s != 0.25 {
		t.Errorf("byte share = %v, want 0.25", s)
	}
	// 2 (K and V) · 2 layers · 2 KV heads · 4 dims = 32 numbers.
	if s := KVSizesOf(m); s != (KVSizes{Numbers: 32, BytesF32: 128, BytesBF: 64}) {
		t.Errorf("KVSizesOf = %+v", s)
	}
	m.KVBytesPerToken = 64 // the engine's count (attention layers only)
	if s := KVSizesOf(m); s.Numbers != 16 {
		t.Errorf("KVSizesOf from bytes = %+v", s)
	}
}

func TestDecodeGBs(t *testing.T) {
	// 10 tokens are 9 forward passes (trace.DecodePasses) of 1e9 bytes in
	// 3 s: 3 GB/s.
	tm := trace.Timing{DecodeTokens: 10, DecodeSeconds: 3, BytesPerToken: 1e9}
	if g := DecodeGBs(tm); !near(g, 3) {
		t.Errorf("DecodeGBs = %v, want 3", g)
	}
	if g := DecodeGBs(trace.Timing{DecodeTokens: 10, DecodeSeconds: 3}); !math.IsNaN(g) {
		t.Errorf("unknown bytes: %v", g)
	}
	if r := Rate(12, 0); r != 0 {
		t.Errorf("Rate over no time = %v, want 0", r)
	}
	if r := Ratio(12, 0); !math.IsNaN(r) {
		t.Errorf("Ratio over nothing = %v, want NaN", r)
	}
	if r := Rate(12, 4); r != 3 {
		t.Errorf("Rate = %v, want 3", r)
	}
}

// TestStrongestSourceIsTheLargestMean checks the one-pass StrongestSource
// against its definition (the source whose grid has the largest mean) on
// random captures of the 28 × 12 shape, heads of uneven lengths included.
func TestStrongestSourceIsTheLargestMean(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 40 {
		q := 2 + rng.IntN(60)
		a := trace.Attention{QueryPos: q, Weights: make([][][]float32, 28)}
		for l := range a.Weights {
			a.Weights[l] = make([][]float32, 12)
			for h := range a.Weights[l] {
				w := make([]float32, q+1-rng.IntN(2)) // a shorter row now and then
				for i := range w {
					w[i] = float32(rng.Float64() * rng.Float64())
				}
				a.Weights[l][h] = w
			}
		}
		want, wantV := 0, -1.0
		for s := 1; s < q; s++ {
			if v := GridMean(SourceGrid(a, s)); v > wantV {
				want, wantV = s, v
			}
		}
		if got := StrongestSource(a); got != want {
			t.Fatalf("trial %d (query %d): strongest source %d, the largest mean is at %d", trial, q, got, want)
		}
	}
}

func TestLastCaptured(t *testing.T) {
	att := []trace.Attention{{QueryPos: 2}, {QueryPos: 7}, {QueryPos: 5}}
	for q, want := range map[int]int{7: 7, 6: 5, 9: 7, 2: 2, 1: 1} {
		if got := LastCaptured(att, q); got != want {
			t.Errorf("LastCaptured(%d) = %d, want %d", q, got, want)
		}
	}
}

// route is a Routing of layer l choosing ids (probabilities left out).
func route(l int, ids ...int) trace.Routing { return trace.Routing{Layer: l, IDs: ids} }

func TestExpertsTouched(t *testing.T) {
	// Two MoE layers (1 and 3) of 8 experts, k = 2, three tokens.
	steps := []trace.Step{
		{Experts: []trace.Routing{route(1, 0, 5), route(3, 2, 7)}},
		{Experts: []trace.Routing{route(1, 5, 0), route(3, 7, 1)}},
		{Experts: []trace.Routing{route(1, 6, 4), route(3, 2, 1)}},
	}
	want := []Touched{{1, 2, 0.25}, {3, 3, 0.375}}
	if got := ExpertsTouched(steps, 2, 8); !reflect.DeepEqual(got, want) {
		t.Errorf("after 2 tokens: %v, want %v", got, want)
	}
	want = []Touched{{1, 4, 0.5}, {3, 3, 0.375}}
	if got := ExpertsTouched(steps, 0, 8); !reflect.DeepEqual(got, want) {
		t.Errorf("after all tokens: %v, want %v", got, want)
	}
	// Mean over the two layers: (2+2)/16, (2+3)/16, (4+3)/16.
	c := TouchedCurve(steps, 8)
	if len(c) != 3 || !near(c[0], 4.0/16) || !near(c[1], 5.0/16) || !near(c[2], 7.0/16) {
		t.Errorf("TouchedCurve = %v", c)
	}
	if got := TouchedCurve(nil, 8); len(got) != 0 {
		t.Errorf("no steps: %v", got)
	}
	// Uniform routing, E = 64, k = 8: 1 − (7/8)^n; the spec's E·(…) for
	// n = 10 is 47.2 experts.
	if u := UniformTouched(64, 8, 10) * 64; math.Abs(u-47.2) > 0.05 {
		t.Errorf("UniformTouched(64, 8, 10)·64 = %.2f, want 47.2", u)
	}
	if u := UniformTouched(64, 8, 1); !near(u, 0.125) {
		t.Errorf("one token touches %v of the experts, want k/E", u)
	}
}

func TestExpertBytes(t *testing.T) {
	// OLMoE-1B-7B in bf16: 16 MoE layers, 64 experts of 3·2048·1024
	// parameters, 8 per token.
	one := int64(3*2048*1024) * 2
	m := trace.ModelInfo{Experts: 64, ExpertsPerToken: 8, MoELayers: 16, ExpertBytes: one, WeightBytesPerTok: 2_360_000_000}
	read, dense := ExpertBytes(m)
	if read != m.WeightBytesPerTok || dense != read+16*56*one {
		t.Errorf("ExpertBytes = %d, %d; want %d, %d", read, dense, m.WeightBytesPerTok, read+16*56*one)
	}
	if r, d := ExpertBytes(trace.ModelInfo{WeightBytesPerTok: 5}); r != 0 || d != 0 {
		t.Errorf("a dense model: %d, %d", r, d)
	}
}

func TestRoutingGrid(t *testing.T) {
	rs := []trace.Routing{{Layer: 0, IDs: []int{2, 0}, Probs: []float32{0.25, 0.125, 0.5, 0.125}},
		{Layer: 1, IDs: []int{1, 3}, Probs: []float32{0.125, 0.5, 0.125, 0.25}}}
	g, chosen := RoutingGrid(rs)
	if !reflect.DeepEqual(g[1], []float64{0.125, 0.5, 0.125, 0.25}) {
		t.Errorf("row 1 = %v", g[1])
	}
	if want := [][2]int{{0, 2}, {0, 0}, {1, 1}, {1, 3}}; !reflect.DeepEqual(chosen, want) {
		t.Errorf("chosen = %v, want %v", chosen, want)
	}
	if m := RoutingMass(rs[0]); !near(m, 0.75) {
		t.Errorf("routing mass %v, want 0.75", m)
	}
}

// Perplexity: exp(−mean ln p) over the steps that recorded the model's p,
// here against the float64 geometric mean written out; none recorded: not ok.
func TestPerplexity(t *testing.T) {
	ps := []float64{0.5, 0.25, 0.9, 1e-3}
	var steps []trace.Step
	for _, p := range ps {
		steps = append(steps, trace.Step{ModelP: p})
	}
	want := math.Pow(1/(0.5*0.25*0.9*1e-3), 1.0/4)
	if got, ok := Perplexity(steps); !ok || math.Abs(got-want) > 1e-12*want {
		t.Errorf("perplexity %v (%v), want %v", got, ok, want)
	}
	if _, ok := Perplexity([]trace.Step{{Chosen: trace.Candidate{P: 0.5}}}); ok {
		t.Error("a run without the model's p has a perplexity")
	}
}
