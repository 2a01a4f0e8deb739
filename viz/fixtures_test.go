package viz

import (
	"math"

	"loupe/trace"
)

// The fixtures follow the article's purple-cat example; the numbers are
// made up to look like it, not taken from a model.

var purpleTokens = []string{"My", " cat", " is", " purple", ".", " But", " my", " friends",
	" tell", " me", " there", " is", " no", " such", " thing", " as", " a"}

// headWeights is "91 % on purple, 5 % on My": layer 19, head 2 of the article.
func headWeights() []float32 {
	w := make([]float32, len(purpleTokens))
	for i := range w {
		w[i] = 0.02 / 13
	}
	w[0], w[3], w[4], w[5] = 0.05, 0.91, 0.01, 0.01
	return w
}

// lcg is a tiny deterministic generator so fixtures never change.
type lcg uint64

func (s *lcg) next() float64 {
	*s = *s*6364136223846793005 + 1442695040888963407
	return float64(*s>>11) / (1 << 53)
}

// attentionOnSource is a layers × heads grid whose head mean rises after
// layer 10 and peaks at layer 17, like the article's figure.
func attentionOnSource(layers, heads int) [][]float32 {
	s := lcg(7)
	w := make([][]float32, layers)
	for l := range w {
		level := 0.03 + 0.26*math.Exp(-math.Pow(float64(l-17)/4, 2))
		w[l] = make([]float32, heads)
		for h := range w[l] {
			w[l][h] = float32(min(1, level*2*s.next()))
		}
	}
	if layers > 17 && heads > 2 {
		w[17][2] = 0.91
	}
	return w
}

// attention is a full capture: weights[layer][head][key] summing to 1
// over keys, with a sink on key 0.
func attention(layers, heads, query int) trace.Attention {
	s := lcg(3)
	a := trace.Attention{QueryPos: query, Weights: make([][][]float32, layers)}
	for l := range a.Weights {
		a.Weights[l] = make([][]float32, heads)
		for h := range a.Weights[l] {
			k := make([]float32, query+1)
			var sum float64
			for i := range k {
				k[i] = float32(s.next())
				if i == 0 {
					k[i] = float32(query)
				}
				sum += float64(k[i])
			}
			for i := range k {
				k[i] = float32(float64(k[i]) / sum)
			}
			a.Weights[l][h] = k
		}
	}
	return a
}

var purpleCandidates = []trace.Candidate{
	{ID: 24932, Text: " purple", P: 0.925}, {ID: 6303, Text: " blue", P: 0.006},
	{ID: 8251, Text: " cat", P: 0.006}, {ID: 6176, Text: " pink", P: 0.005},
	{ID: 6852, Text: " violet", P: 0.004}, {ID: 2518, Text: " green", P: 0.004},
	{ID: 2797, Text: " red", P: 0.003}, {ID: 330, Text: " \"", P: 0.003},
	{ID: 13876, Text: "\n", P: 0.002}, {ID: 11315, Text: " black", P: 0.002},
}

var articleRuns = []TimingRow{
	{Label: "purple cat", PrefillTokens: 17, PrefillSeconds: 0.08, DecodeTokens: 100, DecodeSeconds: 7.1, BytesPerToken: 3.1e9},
	{Label: "The Gold-Bug", PrefillTokens: 3139, PrefillSeconds: 2.1, DecodeTokens: 100, DecodeSeconds: 7.5, BytesPerToken: 3.2e9},
}

// mlpValues is 8,960 values with a heavy tail like silu(gate)·up.
func mlpValues() []float32 {
	s := lcg(11)
	v := make([]float32, 8960)
	for i := range v {
		u := s.next()
		x := 0.08 * math.Tan(math.Pi*(u-0.5)*0.97) // Cauchy-like tail
		v[i] = float32(max(-3.3, min(3.3, x)))
	}
	return v
}

// qwen15 is Qwen2.5-1.5B's parameter split (tied embeddings).
var qwen15 = trace.ModelInfo{
	Name: "Qwen2.5-1.5B", Layers: 28, Heads: 12, KVHeads: 2, HeadDim: 128, Hidden: 1536,
	Intermediate: 8960, Vocab: 151936, TiedEmbeddings: true, DType: "bf16",
	ParamsEmbedding: 151936 * 1536, ParamsAttention: 28 * (1536*1536*2 + 1536*256*2 + 1536 + 256*2),
	ParamsMLP: 28 * 3 * 1536 * 8960, ParamsNorm: 28*2*1536 + 1536,
	WeightBytesPerTok: 2 * 1543714304, OutputBytesPerTok: 2 * 151936 * 1536,
}

// kv is tokens × dim keys or values; keys get a few large columns, as
// rotary keys do.
func kv(tokens, dim int, seed lcg, keys bool) [][]float32 {
	m := make([][]float32, tokens)
	for t := range m {
		m[t] = make([]float32, dim)
		for d := range m[t] {
			x := 2*seed.next() - 1
			if keys && d%37 == 5 {
				x *= 6
			}
			m[t][d] = float32(x)
		}
	}
	return m
}

// embeddingRow starts like the article's "purple": 0.017, -0.004, ...
func embeddingRow() []float32 {
	s := lcg(5)
	v := make([]float32, 1536)
	for i := range v {
		v[i] = float32(0.03 * (2*s.next() - 1))
	}
	copy(v, []float32{0.017, -0.004, -0.008, -0.005, 0.026, 0.028})
	return v
}

// loopSteps are the article's first four generated tokens.
var loopSteps = []trace.Step{
	{Pos: 17, Chosen: trace.Candidate{ID: 24932, Text: " purple", P: 0.925}},
	{Pos: 18, Chosen: trace.Candidate{ID: 8251, Text: " cat", P: 0.905}},
	{Pos: 19, Chosen: trace.Candidate{ID: 13, Text: ".", P: 0.688}},
	{Pos: 20, Chosen: trace.Candidate{ID: 2160, Text: " Is", P: 0.128}},
}

// manySteps are 100 steps of varying confidence.
func manySteps() []trace.Step {
	s := lcg(13)
	steps := make([]trace.Step, 100)
	for i := range steps {
		steps[i] = trace.Step{Pos: 17 + i, Chosen: trace.Candidate{ID: i, Text: " x", P: 0.3 + 0.7*s.next()}}
	}
	steps[41].Chosen = trace.Candidate{ID: 5, Text: " Is", P: 0.128}
	return steps
}

// qwen35 is Qwen3.5-2B as the article counts it: 509 M of 1.9 B.
var qwen35 = trace.ModelInfo{Name: "Qwen3.5-2B", TiedEmbeddings: true, ParamsEmbedding: 509e6, ParamsMLP: 1.391e9}

// sentence is the prompt with its ids (made up) and three generated tokens.
func sentence() []trace.Token {
	var ts []trace.Token
	for i, t := range purpleTokens {
		ts = append(ts, trace.Token{ID: 5000 + 37*i, Text: t, Pos: i})
	}
	for i, t := range []string{" purple", " cat", ".", "\n"} {
		ts = append(ts, trace.Token{ID: 24932 - i, Text: t, Pos: len(purpleTokens) + i, Generated: true})
	}
	return ts
}

// layer18 is [head][key] over the 17 tokens, head 2 on "purple" at 91 %.
func layer18() [][]float32 {
	a := attention(1, 12, 16).Weights[0]
	a[2] = headWeights()
	return a
}

// purpleLens is a 28-layer logit lens where "·purple" (24932) takes the
// lead at layer index 17 and keeps it, after a wobble at 15.
func purpleLens() []trace.LensLayer {
	words := []string{" the", " cat", " colour", " thing", " purple", " blue", "\n", " of"}
	lens := make([]trace.LensLayer, 28)
	for l := range lens {
		lens[l].Layer = l
		rest := 0.3
		if l >= 17 || l == 15 {
			top := 0.3 + 0.6*float64(l-15)/12
			lens[l].Top = append(lens[l].Top, trace.Candidate{ID: 24932, Text: " purple", P: top})
			rest = 1 - top
		}
		for r := len(lens[l].Top); r < 5; r++ {
			w := words[(l+r)%len(words)]
			if w == " purple" {
				w = " violet"
			}
			lens[l].Top = append(lens[l].Top, trace.Candidate{ID: 100 + (l+r)%len(words), Text: w, P: rest / float64(r+2)})
		}
	}
	return lens
}

// sampledStages is one sampling step at T 0.7, top-k 4, top-p 0.9: the
// fifth candidate goes at top-k, the fourth at top-p; the second is drawn.
func sampledStages() (trace.SamplerStages, trace.Settings) {
	st := trace.SamplerStages{Drawn: 11, U: 0.62}
	for i, w := range []string{" purple", " blue", " cat", " green", " colour"} {
		st.Candidates = append(st.Candidates, trace.Candidate{ID: 10 + i, Text: w})
	}
	st.Stages = []trace.SamplerStage{
		{Name: "penalties", Kept: 151936, P: []float64{0.5, 0.2, 0.1, 0.05, 0.04}},
		{Name: "temperature", On: true, Kept: 151936, P: []float64{0.6, 0.2, 0.08, 0.03, 0.02}},
		{Name: "top-k", On: true, Kept: 4, P: []float64{0.66, 0.22, 0.09, 0.03, 0}},
		{Name: "top-p", On: true, Kept: 3, P: []float64{0.68, 0.23, 0.09, 0, 0}},
		{Name: "min-p", Kept: 3, P: []float64{0.68, 0.23, 0.09, 0, 0}},
	}
	for i := range st.Candidates {
		st.Candidates[i].P = st.Stages[4].P[i]
	}
	return st, trace.Settings{Temperature: 0.7, TopK: 4, TopP: 0.9}
}

func greedyStages() trace.SamplerStages {
	st, _ := sampledStages()
	st.Greedy, st.Drawn, st.U = true, 10, 0
	st.Stages = st.Stages[:1]
	return st
}
