package experiment

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"loupe/i18n"
	"loupe/trace"
)

// handResults are one hand-made result of every sweep, in the shapes
// whose sentences differ.
func handResults() []Result {
	p := func(label string, pre, dec, bytes float64) Point {
		return Point{Value: label, Label: label, PrefillTokS: pre, DecodeTokS: dec, BytesPerToken: bytes, PredictedDecodeTokS: dec * 1.1,
			PrefillTokens: 128, PrefillSeconds: 128 / pre, DecodeTokens: 16, DecodeSeconds: 16 / dec}
	}
	gold := p("The Gold-Bug", 700, 10.5, 3.2e9)
	gold.PrefillTokens, gold.PrefillSeconds = 3139, 4.5
	return []Result{
		{What: Context, Points: []Point{p("256", 900, 14.2, 3.1e9), p("32k", 400, 9.8, 4.2e9)}},
		{What: Kernels, Points: []Point{p("avx2", 150, 13.9, 3.1e9), p("avx512bf16", 885, 14.1, 3.1e9)}},
		{What: Kernels, Points: []Point{p("generic", 5, 2.1, 3.1e9), p("avx512bf16", 885, 14.1, 3.1e9)}},
		{What: Kernels, Points: []Point{p(Exact, 300, 13.9, 3.1e9), p("avx512bf16", 885, 14.1, 3.1e9)}},
		{What: Threads, Points: []Point{p("1", 100, 10, 3.1e9), p("12", 1100, 14, 3.1e9)}},
		{What: Threads, Points: []Point{p("1", 100, 10, 3.1e9), p("12", 130, 12, 3.1e9)}},
		{What: Threads, Points: []Point{p("1", 100, 10, 3.1e9), p("12", 60, 9, 3.1e9)}},
		{What: Texts, Points: []Point{p("your prompt", 900, 14, 3.1e9), gold}},
		{What: Texts, Points: []Point{p("your prompt", 900, 14, 3.1e9), p("The Gold-Bug", 700, 7, 3.2e9)}},
		{What: Quant, Points: []Point{p("bf16", 900, 14, 3.1e9), p("q8_0", 950, 25.5, 1.65e9), p("q4_k_m", 800, 39.8, 0.94e9)}},
	}
}

var (
	anyNumber   = regexp.MustCompile(`\d+(?:(?:[.,]|\x{202f})\d+)*`)
	pointNumber = regexp.MustCompile(`\d\.\d`)
)

// numbersOf lists a sentence's numbers, sorted, with a '.' decimal and
// no separator, whichever notation wrote them.
func numbersOf(s, decimal, group string) []string {
	var out []string
	for _, n := range anyNumber.FindAllString(s, -1) {
		out = append(out, strings.ReplaceAll(strings.ReplaceAll(n, group, ""), decimal, "."))
	}
	slices.Sort(out)
	return out
}

// The sentence under each sweep's figure, in French: translated, the
// same numbers in French notation, no decimal point; English is the
// Reading the window has always shown.
func TestReadingInFrench(t *testing.T) {
	for _, r := range handResults() {
		en, fr := Reading(r), ReadingIn(r, i18n.French)
		switch {
		case en == "" || fr == "" || en == fr:
			t.Errorf("%s: %q / %q", r.What, en, fr)
		case strings.Contains(fr, "experiment.") || strings.Contains(fr, "<no value>"):
			t.Errorf("%s: a missing key or field: %q", r.What, fr)
		case pointNumber.MatchString(fr):
			t.Errorf("%s: a decimal point in French: %q", r.What, fr)
		case !slices.Equal(numbersOf(en, ".", ","), numbersOf(fr, ",", "\u202f")):
			t.Errorf("%s: other numbers\n%q\n%q", r.What, en, fr)
		}
	}
	kernels := ReadingIn(handResults()[1], i18n.French)
	if want := "La lecture a pris 5,9\u202f× plus de temps avec avx2 qu'avec avx512bf16\u202f; l'écriture a changé de -1\u202f%."; kernels != want {
		t.Errorf("kernels:\n%q\nwant\n%q", kernels, want)
	}
}

// Plan speaks Options.Lang.
func TestPlanInFrench(t *testing.T) {
	info := trace.ModelInfo{MaxPositions: 32768, WeightBytesPerTok: 3.1e9, FileBytes: 3.1e9}
	for _, what := range []string{Texts, Context, Kernels, Threads} { // Quant: TestQuantPlanSizeIsTheCopiesSize
		en := Plan(what, info, Options{}, Speeds{PrefillTokS: 900, DecodeTokS: 14}, 12)
		fr := Plan(what, info, Options{Lang: i18n.French}, Speeds{PrefillTokS: 900, DecodeTokS: 14}, 12)
		if !strings.Contains(fr, "environ") || pointNumber.MatchString(fr) || !slices.Equal(numbersOf(en, ".", ","), numbersOf(fr, ",", "\u202f")) {
			t.Errorf("%s:\n%q\n%q", what, en, fr)
		}
	}
}
