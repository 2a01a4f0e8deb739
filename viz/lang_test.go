package viz

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"

	"loupe/format"
	"loupe/i18n"
	"loupe/trace"
	"loupe/trace/stats"
)

// figuresIn draws every kind of figure from the fixtures in th, with the
// caller's own words (a sweep's title and notes, a head's title) in
// words.
func figuresIn(th Theme, words map[string]string) map[string]Figure {
	a := attention(4, 3, 16)
	m, _ := stats.SourceMapOf(a, 3, trace.ModelInfo{})
	g := GridOf(m, purpleTokens)
	sampled, settings := sampledStages()
	runs := []TimingRow{articleRuns[0], articleRuns[1]}
	runs[0].Label, runs[1].Label = words["run1"], words["run2"]
	d := trace.DeltaNet{Layer: 0, Alpha: [][]float32{{0.9, 0.1}, {0.8, 0.2}}, Beta: [][]float32{{0.5, 0.5}, {0.4, 0.6}},
		StatePos: []int{1}, StateNorm: [][]float32{{1, 2}}}
	return map[string]Figure{
		"attention":      AttentionGrid(g, th),
		"headbars":       HeadBars(purpleTokens, headWeights(), words["head"], th),
		"candidates":     TopCandidates(purpleCandidates, 24932, th),
		"candidates out": TopCandidates(purpleCandidates[:3], 1, th),
		"timing":         TimingBars(runs, 47, th),
		"mlp":            MLPValues(mlpValues(), 600, "", th),
		"embedding":      Embedding(embeddingRow(), " purple", th),
		"embedding row":  EmbeddingRow(embeddingRow(), EmbeddingRowInfo{Token: " purple", Row: 24503, Rows: 151936, Tied: true}, th),
		"kvcache":        KVCache(kv(17, 128, 1, true), kv(17, 128, 2, false), purpleTokens, th),
		"kvcache long":   KVCache(kv(3139, 128, 1, true), kv(3139, 128, 2, false), nil, th),
		"params":         ParamShares(qwen15, th),
		"sweep":          Sweep(words["sweep"], contextSweep, []string{words["note"]}, th),
		"steps":          StepProbs(manySteps(), th),
		"steps rows":     StepProbs(manySteps()[:4], th),
		"softmax":        ScoreShares(nil, []float64{1.2, 3.5, 0.4, 2.1}, th),
		"outputs":        OutputShares([]trace.ModelInfo{qwen15}, th),
		"tokens":         TokenChips(sentence(), th),
		"layer heads":    LayerHeads(purpleTokens, layer18(), 18, th),
		"logit lens":     LogitLens(purpleLens(), "·a", 16, -1, th),
		"logit lens 2":   LogitLens(purpleLens()[:6], "·a", 16, 24932, th),
		"sampler":        SamplerStages(sampled, settings, th),
		"greedy":         SamplerStages(greedyStages(), trace.Settings{}, th),
		"deltanet":       DeltaNetFigure(d, words["why"], th),
		"no data":        AttentionGrid(Grid{}, th),
	}
}

// drawnTexts is every string f writes on a 720 × 480 canvas, as the
// figure builder hands it to the canvas (not pixels).
func drawnTexts(f Figure) []string {
	var rec recorder.Canvas
	f.Draw(draw.Canvas{Canvas: &rec, Rectangle: vg.Rectangle{Max: vg.Point{X: 720, Y: 480}}})
	var out []string
	for _, a := range rec.Actions {
		if s, ok := a.(*recorder.FillString); ok && strings.TrimSpace(s.String) != "" {
			out = append(out, s.String)
		}
	}
	return out
}

var (
	// englishWord is a word of the figures' English that French never
	// writes; the fixtures' tokens (“·is”, “·a”) are quoted and cut out
	// before it is looked for.
	englishWord = regexp.MustCompile(`(?i)\b(the|of|and|layer|head|heads|share|probability|reading|writing|mean|chosen|others|memory|parameters|step|steps|rank|value|values|keys|more|left|removed|all|each|written|read|output|none|no data|largest|first|row|rows|tokens attended)\b`)
	quoted      = regexp.MustCompile(`“[^”]*”|«[^»]*»|·\S+|Qwen[\w.-]+`)
	// englishNumber is a decimal point (a comma between thousands reads
	// as a French decimal: "0,017").
	englishNumber = regexp.MustCompile(`\d\.\d`)
)

// A French figure writes French: no English word in any title, axis
// label, legend, tick or note, numbers with a decimal comma and narrow
// no-break spaces; and the English figure still writes English.
func TestFrenchFigureTexts(t *testing.T) {
	fr := Light()
	fr.Lang = i18n.French
	figs := figuresIn(fr, map[string]string{"run1": "chat violet", "run2": "le Scarabée d'or", "head": "couche 19, tête 2",
		"sweep": "contexte", "note": "À 32k positions chaque token lit 6,8 Go au lieu de 3,1 Go.", "why": "cette couche n'a pas d'attention"})
	en := figuresIn(Light(), map[string]string{"run1": "purple cat", "run2": "The Gold-Bug", "head": "layer 19, head 2",
		"sweep": "context", "note": "At 32k positions each token reads 6.8 GB instead of 3.1 GB.", "why": "no attention"})
	commas := 0
	for _, name := range slicesSorted(figs) {
		frTexts, enTexts := drawnTexts(figs[name]), drawnTexts(en[name])
		if len(frTexts) == 0 {
			t.Errorf("%s: nothing written", name)
		}
		for _, s := range frTexts {
			bare := quoted.ReplaceAllString(s, "“”")
			if w := englishWord.FindString(bare); w != "" && !slices.Contains(enTokens, strings.TrimSpace(s)) {
				t.Errorf("%s: French figure writes English %q in %q", name, w, s)
			}
			if englishNumber.MatchString(bare) {
				t.Errorf("%s: French figure writes an English number in %q", name, s)
			}
			if strings.Contains(s, "viz.") {
				t.Errorf("%s: key without a sentence: %q", name, s)
			}
			if regexp.MustCompile(`\d,\d`).MatchString(bare) {
				commas++
			}
		}
		if slices.Equal(frTexts, enTexts) {
			t.Errorf("%s: French figure writes what the English one does: %q", name, frTexts)
		}
	}
	if commas == 0 {
		t.Error("no French figure writes a decimal comma")
	}
}

// enTokens are the fixtures' token texts a chip or a row writes as they
// are, in either language.
var enTokens = []string{"My", "cat", "is", "purple", "But", "my", "friends", "tell", "me", "there", "no", "such", "thing", "as", "a", "·is", "·a", "·no", "·as", "·there"}

func slicesSorted(m map[string]Figure) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// The label strings the figure builders make, in both languages, against
// the French article's own writing.
func TestFrenchLabels(t *testing.T) {
	fr := Light()
	fr.Lang = i18n.French
	nn := format.NNBSP
	for _, c := range []struct{ got, want string }{
		{sweepWriting(contextSweep, fr).X.Label.Text, "écriture (décodage), tokens/s"},
		{sweepWriting(contextSweep, Light()).X.Label.Text, "writing (decode), tokens/s"},
		{sweepReading(contextSweep, fr).X.Label.Text, "lecture (prefill), tokens/s"},
		{fr.RowShape(24503, 151936, 1536), "ligne 24" + nn + "503 sur 151" + nn + "936 × 1" + nn + "536"},
		{Light().RowShape(24503, 151936, 1536), "row 24,503 of 151,936 × 1,536"},
		{fr.layer(18), "couche 19"},
		{fr.quote(" a"), "«" + nn + "·a" + nn + "»"},
		{Light().quote(" a"), "“·a”"},
		{fr.CountedFrom(), "numérotées à partir de 1"},
		{fromZero(Light()).CountedFrom(), FromZero.String()},
		{phaseLine("timing.reading", 17, 0.08, 212.5, 0.011, fr), "lecture de 17 tokens  ·  80" + nn + "ms  ·  213 tokens/s  ·  1,1" + nn + "%"},
		{phaseLine("timing.reading", 1, 0.08, 12.5, 0.011, fr), "lecture de 1 token  ·  80" + nn + "ms  ·  13 tokens/s  ·  1,1" + nn + "%"},
		{phaseLine("timing.writing", 100, 7.1, 14.1, 0.989, Light()), "writing 100 tokens  ·  7.1 s  ·  14 tokens/s  ·  98.9 %"},
		{bandwidthNotes(articleRuns[:1], 47, fr)[0], "purple cat" + "\u00a0: 3,1" + nn + "Go/token × 14 tokens/s ≈ 43" + nn + "Go/s sur 47" + nn + "Go/s mesurés"},
		{fr.StageLabel(trace.SamplerStage{Name: "temperature", On: true}, trace.Settings{Temperature: 0.7}), "température\nT = 0,7"},
		{fr.StageLabel(trace.SamplerStage{Name: "top-k"}, trace.Settings{}), "top-k\nk = 0, désactivé"},
	} {
		if c.got != c.want {
			t.Errorf("got  %q\nwant %q", c.got, c.want)
		}
	}
	labels := func(ts []string) string { return strings.Join(ts, " | ") }
	var got []string
	for _, tk := range (speedTicks{num: fr.num()}).Ticks(0, 28000) {
		got = append(got, tk.Label)
	}
	if want := "0 | 10" + nn + "000 | 20" + nn + "000"; labels(got) != want {
		t.Errorf("French speed ticks %q, want %q", labels(got), want)
	}
	got = got[:0]
	for _, tk := range fr.percentAxis().Ticks(0, 0.3) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if want := "0" + nn + "% | 10" + nn + "% | 20" + nn + "% | 30" + nn + "%"; labels(got) != want {
		t.Errorf("French percent ticks %q, want %q", labels(got), want)
	}
}
