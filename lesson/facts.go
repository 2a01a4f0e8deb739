package lesson

import (
	"math"
	"strings"

	"loupe/format"
	"loupe/i18n"
	"loupe/trace"
	"loupe/trace/stats"
)

// facts are the derived numbers every chapter shares: the prompt, the
// query (the last prompt token), the source it fetches and the head that
// fetches it most.
type facts struct {
	in     Input
	info   trace.ModelInfo
	count  numbering
	lang   i18n.Lang     // the language of the text
	num    format.Lang   // how it writes numbers
	prompt []trace.Token // the prompt's tokens
	gen    []trace.Step  // the generated steps
	attn   trace.Attention
	query  int // position of the last prompt token
	source int // the source position
	// why the source was chosen: "top-1" (the model is about to write
	// it) or "strongest" (the largest mean share other than the first).
	sourceWhy  string
	layer      int     // the head that attends most to the source …
	head       int     // … from the query
	share      float32 // its weight on the source
	layerMeans []float64
}

func newFacts(in Input) (*facts, error) {
	if in.Run == nil || in.Inspect == nil {
		return nil, errNoData
	}
	f := &facts{in: in, info: in.Model, count: numbering(btoi(!in.FromZero)), attn: in.Inspect.Attention,
		lang: in.Lang, num: in.Lang.Numbers()}
	for _, t := range in.Run.Tokens {
		if !t.Generated {
			f.prompt = append(f.prompt, t)
		}
	}
	f.gen = in.Run.Steps
	if len(f.prompt) == 0 || len(f.gen) == 0 || len(f.attn.Weights) == 0 {
		return nil, errNoData
	}
	f.query = f.attn.QueryPos
	f.source, f.sourceWhy = findSource(f.attn, f.prompt, firstChoice(f.gen[0]))
	f.layer, f.head, f.share = stats.StrongestHead(f.attn, f.source)
	f.layerMeans = stats.RowMeans(stats.SourceGrid(f.attn, f.source))
	return f, nil
}

// firstChoice is the most probable first token (the chosen one when the
// step kept no top-k).
func firstChoice(s trace.Step) trace.Candidate {
	if len(s.Top) > 0 {
		return s.Top[0]
	}
	return s.Chosen
}

// findSource picks the prompt token the model is about to copy: the
// position of the top-1 candidate in the prompt (by id, else by its text
// without spaces and case), the one the query attends to most when it
// occurs several times. Without such a token it is the strongest source:
// the largest mean share over every layer and head, the first token (the
// sink) and the query itself left out.
func findSource(a trace.Attention, prompt []trace.Token, top1 trace.Candidate) (int, string) {
	q := a.QueryPos
	if q < 2 {
		return 0, "strongest"
	}
	match := func(t trace.Token) bool { return t.ID == top1.ID }
	for pass := 0; pass < 2; pass++ {
		best, bestV := -1, -1.0
		for p := 1; p < q && p < len(prompt); p++ {
			if !match(prompt[p]) {
				continue
			}
			if v := stats.SourceShare(a, p); v > bestV {
				best, bestV = p, v
			}
		}
		if best > 0 {
			return best, "top-1"
		}
		want := plain(top1.Text)
		match = func(t trace.Token) bool { return want != "" && plain(t.Text) == want }
	}
	return stats.StrongestSource(a), "strongest"
}

// plain is a token's text without surrounding spaces, in lower case.
func plain(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// numbering is the number given to the first layer and head in the text.
type numbering int

func (n numbering) Base() int { return int(n) }

// layerName is layer l as the text counts it: "layer 19", "couche 19".
func (f *facts) layerName(l int) string { return f.t("layer", i18n.Args{"N": l + f.count.Base()}) }

// headName is head h as the text counts it: "head 2", "tête 2".
func (f *facts) headName(h int) string { return f.t("head", i18n.Args{"N": h + f.count.Base()}) }

// t is the lesson's sentence key ("lesson." + key in the translation
// files) in the lesson's language.
func (f *facts) t(key string, args i18n.Args) string { return f.lang.T("lesson."+key, args) }

// units is n of a unit with its plural form ("unit.token": "3 tokens").
func (f *facts) units(unit string, n int) string {
	return f.lang.N("unit."+unit, n, i18n.Args{"N": f.num.Thousands(int64(n))})
}

// tokens is "1 token", "3,139 tokens", "3 139 tokens".
func (f *facts) tokens(n int) string { return f.units("token", n) }

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// attentionLayers counts the layers with an attention map and lists the
// others (a hybrid's Gated DeltaNet layers).
func (f *facts) attentionLayers() (n int, without []int) {
	for l := range f.info.Layers {
		if f.info.HasAttention(l) {
			n++
		} else {
			without = append(without, l)
		}
	}
	return n, without
}

// tok is a token's text as the figures show it, between quotes: «a» in
// English, « a » in French, whose guillemets take narrow no-break spaces.
func (f *facts) tok(s string) string {
	if t := strings.TrimSpace(s); t != "" {
		s = t
	}
	if f.lang == i18n.French {
		return "«" + format.NNBSP + format.Visible(s) + format.NNBSP + "»"
	}
	return "«" + format.Visible(s) + "»"
}

// tokenText is the text of prompt position p.
func (f *facts) tokenText(p int) string {
	if p >= 0 && p < len(f.prompt) {
		return f.prompt[p].Text
	}
	return ""
}

// finite is x, or nil for NaN and ±Inf (JSON holds no NaN).
func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}
