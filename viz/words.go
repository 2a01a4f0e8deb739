package viz

import (
	"gonum.org/v1/plot"

	"loupe/format"
	"loupe/i18n"
	"loupe/trace/stats"
)

// The words and numbers of a figure follow th.Lang: every sentence is a
// key "viz.…" of the translation files, every number is written by
// format in the language's notation. The zero Lang speaks English, so a
// caller that never sets it draws what it drew before.

// t is the sentence of key "viz."+key in th's language.
func (th Theme) t(key string, args i18n.Args) string { return th.Lang.T("viz."+key, args) }

// n is t for a sentence with plural forms chosen by count.
func (th Theme) n(key string, count int, args i18n.Args) string {
	return th.Lang.N("viz."+key, count, args)
}

// num is how th's language writes numbers.
func (th Theme) num() format.Lang { return th.Lang.Numbers() }

// tokens is "17 tokens", "17 tokens" in French too, "1 token".
func (th Theme) tokens(n int) string {
	return th.Lang.N("unit.token", n, i18n.Args{"N": th.num().Thousands(int64(n))})
}

// layer is "layer 19" for index 18 counted from 1, "couche 19" in French.
func (th Theme) layer(i int) string { return th.t("layer", i18n.Args{"N": th.Count.Index(i)}) }

// pct is format.Percent in th's language: "67.5 %", "67,5 %".
func (th Theme) pct(p float64) string { return th.num().Percent(p) }

// percentAxis labels a 0..1 axis in percent, in th's notation.
func (th Theme) percentAxis() percentTicks { return percentTicks{num: th.num()} }

// partKeys are the keys of the parts trace/stats splits a model into.
var partKeys = map[string]string{"embedding": "part.embedding", "attention": "part.attention",
	"Gated DeltaNet": "part.deltanet", "MLP": "part.mlp", "norms": "part.norms", "output head": "part.output"}

// Part is a model part's name ("output head") in th's language, for the
// window's bars.
func (th Theme) Part(name string) string { return th.part(name) }

// gapKeys are the keys of the labels trace/stats writes across a grid
// row without an attention map.
var gapKeys = map[string]string{stats.DeltaNetRowLabel: "gap.deltanet", stats.NoMapRowLabel: "gap.no_map"}

// GapLabel is a grid row's gap label in th's language; a label stats
// did not write (already a sentence) passes as it is.
func (th Theme) GapLabel(label string) string {
	if k, ok := gapKeys[label]; ok {
		return th.t(k, nil)
	}
	return label
}

// part is a model part's name ("output head") in th's language.
func (th Theme) part(name string) string {
	if k, ok := partKeys[name]; ok {
		return th.t(k, nil)
	}
	return name
}

// langTicks are gonum's default ticks written in num's notation ("0,2").
type langTicks struct{ num format.Lang }

func (t langTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		ts[i].Label = t.num.Number(ts[i].Label)
	}
	return ts
}

// quote is a token between the quotes of th's language: “·purple” in
// English, « ·purple » in French (narrow no-break spaces inside).
func (th Theme) quote(tok string) string { return th.t("quote", i18n.Args{"T": cutToken(tok)}) }

// CountedFrom names th's numbering of layers and heads in its language
// ("counted from 1", "numérotées à partir de 1"), for captions;
// Numbering.String is its English name.
func (th Theme) CountedFrom() string {
	return th.t("counted", i18n.Args{"N": th.Count.Base()})
}
