package experiment

import (
	"math"
	"strings"

	"loupe/format"
	"loupe/i18n"
)

// Reading is the one sentence under a sweep's figure that reads its
// result, e.g. "reading took 5.9 × longer with generic than with
// avx512bf16; writing changed by 2 %". Empty for fewer than two points.
func Reading(r Result) string { return ReadingIn(r, i18n.English) }

// ReadingIn is Reading in l, its numbers in l's notation.
func ReadingIn(r Result, l i18n.Lang) string {
	ps := r.Points
	if len(ps) < 2 {
		return ""
	}
	a, b := ps[0], ps[len(ps)-1]
	num := l.Numbers()
	t := func(key string, args i18n.Args) string { return l.T("experiment.reading."+key, args) }
	switch r.What {
	case Context:
		return t("context", i18n.Args{"From": a.Label, "To": b.Label, "BytesFrom": num.Bytes(a.BytesPerToken), "BytesTo": num.Bytes(b.BytesPerToken),
			"TokSFrom": num.Sig2(a.DecodeTokS), "TokSTo": num.Sig2(b.DecodeTokS),
			"PredFrom": num.Sig2(a.PredictedDecodeTokS), "PredTo": num.Sig2(b.PredictedDecodeTokS)})
	case Kernels:
		args := i18n.Args{"A": a.Label, "B": b.Label, "Ratio": times(num, b.PrefillTokS/a.PrefillTokS),
			"Change": change(num, a.DecodeTokS/b.DecodeTokS-1)}
		s := t("kernels", args)
		if w := b.DecodeTokS / a.DecodeTokS; w > 1.25 {
			args["WRatio"] = times(num, w)
			s = t("kernels.compute", args)
		}
		return s + arithmetics(ps, l)
	case Threads:
		pre, dec := b.PrefillTokS/a.PrefillTokS, b.DecodeTokS/a.DecodeTokS
		args := i18n.Args{"A": a.Label, "B": b.Label, "Pre": times(num, pre), "Dec": times(num, dec)}
		switch {
		case pre < 1:
			// More workers were slower: they waited for CPUs that another
			// program held (seen on a shared 2-core machine).
			return t("threads.busy", args)
		case pre > 1.2*dec:
			return t("threads.memory", args)
		}
		return t("threads.plain", args)
	case Texts:
		args := i18n.Args{"TokA": num.Thousands(int64(a.PrefillTokens)), "ShareA": percentOfTotal(num, a.PrefillSeconds, a.PrefillSeconds+a.DecodeSeconds),
			"A": a.Label, "TokB": num.Thousands(int64(b.PrefillTokens)), "ShareB": percentOfTotal(num, b.PrefillSeconds, b.PrefillSeconds+b.DecodeSeconds),
			"B": b.Label, "Decode": num.Thousands(int64(a.DecodeTokens)), "RateA": num.Sig2(a.DecodeTokS), "RateB": num.Sig2(b.DecodeTokS)}
		if w := b.DecodeTokS / a.DecodeTokS; w > 0.77 && w < 1.3 {
			return t("texts.same", args)
		}
		args["Change"], args["Extra"], args["Total"] = change(num, b.DecodeTokS/a.DecodeTokS-1),
			num.Bytes(b.BytesPerToken-a.BytesPerToken), num.Bytes(b.BytesPerToken)
		return t("texts.changed", args)
	case Quant:
		var parts []string
		for _, p := range ps[1:] {
			parts = append(parts, t("quant", i18n.Args{"Label": p.Label, "Base": a.Label,
				"Bytes": num.Fixed(p.BytesPerToken/a.BytesPerToken, 2) + num.Space() + "×", "Speed": times(num, p.DecodeTokS/a.DecodeTokS)}))
		}
		return upper(strings.Join(parts, t("sep", nil))) + "."
	}
	return ""
}

// percentOfTotal is part / total as "1.1 %".
func percentOfTotal(num format.Lang, part, total float64) string {
	if !(total > 0) {
		return "–"
	}
	return num.Percent(part / total)
}

// times writes a ratio as "5.9 ×".
func times(num format.Lang, x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "?" + num.Space() + "×"
	}
	return num.Times(x)
}

// change writes a relative change as "2 %" or "-3 %".
func change(num format.Lang, x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "?" + num.Space() + "%"
	}
	return num.PercentWhole(math.Round(100*x) / 100)
}

func upper(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-32) + s[1:]
}

// arithmetics compares the kernels sweep's two arithmetics of the bf16
// level, when it measured both: what exact fp32 products cost in reading.
func arithmetics(ps []Point, l i18n.Lang) string {
	var ex, bf *Point
	for i := range ps {
		switch ps[i].Value {
		case Exact:
			ex = &ps[i]
		case "avx512bf16":
			bf = &ps[i]
		}
	}
	if ex == nil || bf == nil || ex.PrefillTokS <= 0 || bf.DecodeTokS <= 0 {
		return ""
	}
	num := l.Numbers()
	return l.T("experiment.reading.arithmetics", i18n.Args{"Exact": num.Sig2(ex.PrefillTokS), "BF": num.Sig2(bf.PrefillTokS),
		"Ratio": times(num, bf.PrefillTokS/ex.PrefillTokS), "Change": change(num, bf.DecodeTokS/ex.DecodeTokS-1)})
}
