package lesson

import (
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"loupe/i18n"
	"loupe/trace"
)

// langInputs are the hand model in every shape whose chapters take other
// sentences: without timing runs, with them, a hybrid with Gated DeltaNet
// layers and a mixture of experts.
func langInputs(t *testing.T) map[string]Input {
	timed := handInput(t)
	timed.ThinkingTemplate = true
	timed.Model.WeightBytesPerTok = 3.1e9
	timed.Extra = &Extra{
		Gold: &trace.Timing{PrefillTokens: 3139, PrefillSeconds: 2.1, DecodeTokens: 100, DecodeSeconds: 7.5},
		Kernels: []KernelRun{{Level: "avx512", PrefillTokens: 3139, PrefillSeconds: 2.1, DecodeTokens: 101, DecodeSeconds: 7.5},
			{Level: "avx2", PrefillTokens: 3139, PrefillSeconds: 12.2, DecodeTokens: 101, DecodeSeconds: 7.3}},
		BandwidthGBs: 46,
		ThinkOn:      &trace.Timing{PrefillTokens: 20, PrefillSeconds: 1, DecodeTokens: 500, DecodeSeconds: 39, ThinkingTokens: 400},
		ThinkOff:     &trace.Timing{PrefillTokens: 20, PrefillSeconds: 1, DecodeTokens: 40, DecodeSeconds: 3},
		Ablated: &Ablation{Heads: []trace.Head{{Layer: 1, Head: 2}}, First: trace.Step{Chosen: trace.Candidate{ID: 21, Text: " blue", P: 0.4},
			Top: []trace.Candidate{{ID: 21, Text: " blue", P: 0.4}, {ID: 14, Text: " purple", P: 0.3}}}},
	}
	hybrid := handInput(t)
	hybrid.Model.LayerTypes = []string{"linear_attention", "linear_attention", "full_attention"}
	hybrid.Model.StateBytes = 4096
	hybrid.Inspect.Attention.Weights[0], hybrid.Inspect.Attention.Weights[1] = nil, nil
	moe := handInput(t)
	moe.Model.Experts, moe.Model.ExpertsPerToken, moe.Model.MoELayers, moe.Model.ExpertBytes, moe.Model.ParamsMLPActive = 4, 2, 3, 1000, 240
	for i := range moe.Run.Steps {
		moe.Run.Steps[i].Experts = []trace.Routing{{Layer: 0, IDs: []int{0, i}}, {Layer: 1, IDs: []int{2, 3}}, {Layer: 2, IDs: []int{1, 3}}}
	}
	return map[string]Input{"untimed": handInput(t), "timed": timed, "hybrid": hybrid, "moe": moe}
}

// The French lesson tells the same chapters with the same figures as the
// English one, every title, text and question translated (no English
// sentence, no missing key, no empty template field), its numbers the
// English ones in French notation.
func TestFrenchLessonSameFiguresOtherWords(t *testing.T) {
	for name, in := range langInputs(t) {
		t.Run(name, func(t *testing.T) {
			en := build(t, in)
			in.Lang = i18n.French
			fr := build(t, in)
			for i, e := range en.Chapters {
				f := fr.Chapters[i]
				if f.ID != e.ID || f.Skipped != e.Skipped || f.Show != e.Show || !reflect.DeepEqual(f.Figures, e.Figures) {
					t.Errorf("%s: the French chapter's id, figures or show differ from the English one's", e.ID)
				}
				for _, p := range [][2]string{{e.Title, f.Title}, {e.Text, f.Text}, {e.Question, f.Question}} {
					checkTranslated(t, e.ID, p[0], p[1])
				}
			}
		})
	}
}

func checkTranslated(t *testing.T, id, en, fr string) {
	t.Helper()
	switch {
	case en == "" && fr == "":
	case fr == en || fr == "":
		t.Errorf("%s: not translated: %q", id, fr)
	case strings.Contains(fr, "lesson.") || strings.Contains(fr, "unit.") || strings.Contains(fr, "<no value>"):
		t.Errorf("%s: a missing key or field: %q", id, fr)
	case englishDecimal.MatchString(fr):
		t.Errorf("%s: an English decimal point in French: %q", id, fr)
	case !slices.Equal(numbersIn(en, ".", ","), numbersIn(fr, ",", "\u202f")):
		t.Errorf("%s: other numbers\nen %q %v\nfr %q %v", id, en, numbersIn(en, ".", ","), fr, numbersIn(fr, ",", "\u202f"))
	case !frenchWords.MatchString(fr):
		t.Errorf("%s: no French word in %q", id, fr)
	}
}

var (
	englishDecimal = regexp.MustCompile(`\d\.\d`)
	frenchWords    = regexp.MustCompile(`(?i)\b(le|la|les|des|du|un|une|est|et|sur|dans|quel|quelle|ce|ces)\b`)
	number         = regexp.MustCompile(`\d+(?:(?:[.,]|\x{202f})\d+)*`)
)

// numbersIn lists the numbers of a text, sorted (a translation may name
// them in another order), each written with a '.' decimal and no
// separators: "1,536" and "1 536" are both "1536", "67.5" and "67,5"
// both "67.5".
func numbersIn(s, decimal, group string) []string {
	var out []string
	for _, n := range number.FindAllString(s, -1) {
		n = strings.ReplaceAll(n, group, "")
		out = append(out, strings.ReplaceAll(n, decimal, "."))
	}
	slices.Sort(out)
	return out
}

// The hand-written French of a few sentences, notation included: «
// guillemets » and units with narrow no-break spaces, decimal commas.
func TestFrenchSentences(t *testing.T) {
	in := langInputs(t)["timed"]
	in.Lang = i18n.French
	l := build(t, in)
	n := "\u202f"
	contains(t, l.Chapter(TwoTimes), "3"+n+"139 tokens lus en 2,1"+n+"s", "la lecture fait 21,9"+n+"%")
	contains(t, l.Chapter(ComputeMemory), "41,3"+n+"Go/s lus", "46,0"+n+"Go/s")
	contains(t, l.Chapter(Attention), "la tête 3 de la couche 2 regarde «"+n+"purple"+n+"» à 91,0"+n+"%")
	contains(t, l.Chapter(Counterfactual), "de 92,5"+n+"% à 30,0"+n+"% (Δp -62,5 points)", "couche:tête 2:3")
	if q := l.Chapter(Output).Question; q != "Quel mot vient après «"+n+"a"+n+"»"+n+"?" {
		t.Errorf("question %q", q)
	}
}

// Plan, shown before the timing runs, speaks the lesson's language.
func TestPlanInFrench(t *testing.T) {
	in := handInput(t)
	opt := MeasureOptions{Settings: trace.Settings{MaxTokens: 100}}
	en := Plan(in, opt, 3139)
	in.Lang = i18n.French
	fr := Plan(in, opt, 3139)
	n := "\u202f"
	for _, want := range []string{"Le passage du Scarabée d'or (3" + n + "139 tokens) lu, et 100 tokens écrits", n + "; la bande passante", "\u00a0: environ "} {
		if !strings.Contains(fr, want) {
			t.Errorf("French plan lacks %q: %q", want, fr)
		}
	}
	if !slices.Equal(numbersIn(en, ".", ","), numbersIn(fr, ",", n)) {
		t.Errorf("other numbers:\n%q\n%q", en, fr)
	}
}
