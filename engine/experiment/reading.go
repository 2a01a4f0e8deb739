package experiment

import (
	"math"
	"strconv"
	"strings"

	"loupe/format"
	"loupe/i18n"
	"loupe/trace/stats"
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
		return threadsReading(a, b, l)
	case Texts:
		return textsReading(a, b, l)
	case Batch:
		return batchReading(a, b, l)
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
		return num.UnknownTimes()
	}
	return num.Times(x)
}

// change writes a relative change as "2 %" or "-3 %".
func change(num format.Lang, x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return num.UnknownPercent()
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

// smallModel is the bytes per token under which the threads sentence
// calls a model far from the memory's limit too small to reach it: each
// step's fixed work (waking the threads, a layer's small products)
// outweighs reading the weights. The demo model reads 10 MB a token and
// wrote at 16-19 % of what the memory allows.
const smallModel = 256e6

// threadsReading reads a threads sweep from its first point a to its last
// b: how much reading and writing sped up, and why writing gained less
// only where the figure shows it (writing at stats.MemoryBound or more
// of what the memory allows).
// A speed-up above the ratio of the thread counts is measurement noise:
// n threads cannot do more than n times the work of one.
func threadsReading(a, b Point, l i18n.Lang) string {
	num := l.Numbers()
	t := func(key string, args i18n.Args) string { return l.T("experiment.reading.threads."+key, args) }
	pre, dec := b.PrefillTokS/a.PrefillTokS, b.DecodeTokS/a.DecodeTokS
	args := i18n.Args{"A": a.Label, "B": b.Label, "Pre": times(num, pre), "Dec": times(num, dec)}
	if pre < 1 {
		// More workers were slower: they waited for CPUs that another
		// program held (seen on a shared 2-core machine).
		return t("busy", args)
	}
	if k := threadRatio(a, b); k > 0 && max(pre, dec) > 1.05*k {
		args["Most"], args["Phase"] = times(num, k), t("reading", nil)
		if dec > pre {
			args["Phase"] = t("writing", nil)
		}
		return t("noise", args)
	}
	share := b.DecodeTokS / b.PredictedDecodeTokS
	if !(b.PredictedDecodeTokS > 0) || math.IsNaN(share) {
		return t("plain", args)
	}
	args["Share"], args["Rate"], args["Pred"] = num.Percent(share), num.Sig2(b.DecodeTokS), num.Sig2(b.PredictedDecodeTokS)
	switch {
	case share > stats.CacheBound:
		args["Bytes"] = num.Bytes(b.BytesPerToken)
		return t("cache", args)
	case share >= stats.MemoryBound && pre > 1.2*dec:
		return t("memory", args)
	case share >= stats.MemoryBound:
		return t("plain", args)
	case b.BytesPerToken > 0 && b.BytesPerToken < smallModel:
		args["Bytes"] = num.Bytes(b.BytesPerToken)
		return t("small", args)
	}
	return t("far", args)
}

// threadRatio is how many times more threads b ran on than a (0 when a
// point's count is unknown: Ratio's NaN for a's, which the caller's
// k > 0 reads as unknown).
func threadRatio(a, b Point) float64 {
	nb := threadsOf(b)
	if nb <= 0 {
		return 0
	}
	return stats.OrZero(stats.Ratio(float64(nb), float64(threadsOf(a))))
}

// threadsOf is a threads point's thread count: its Value, or its label
// (a saved experiment's values come back as numbers or strings).
func threadsOf(p Point) int {
	if n, ok := p.Value.(int); ok {
		return n
	}
	n, _ := strconv.Atoi(p.Label)
	return n
}

// TimedRates are a point's reading and writing speeds as a timing figure
// draws them: its run's tokens over its seconds (tokens/s, 0 when not
// timed). The two-texts figure is such a figure, so its sentence and its
// points' speeds are these.
func (p Point) TimedRates() (prefill, decode float64) {
	return stats.Rate(p.PrefillTokens, p.PrefillSeconds), stats.Rate(p.DecodeTokens, p.DecodeSeconds)
}

// textsReading reads the two-texts experiment with the numbers its figure
// draws: each text's share of its wait and its writing speed.
func textsReading(a, b Point, l i18n.Lang) string {
	num := l.Numbers()
	_, ra := a.TimedRates()
	_, rb := b.TimedRates()
	args := i18n.Args{"TokA": num.Thousands(int64(a.PrefillTokens)), "ShareA": percentOfTotal(num, a.PrefillSeconds, a.PrefillSeconds+a.DecodeSeconds),
		"A": a.Label, "TokB": num.Thousands(int64(b.PrefillTokens)), "ShareB": percentOfTotal(num, b.PrefillSeconds, b.PrefillSeconds+b.DecodeSeconds),
		"B": b.Label, "Decode": num.Thousands(int64(a.DecodeTokens)), "RateA": num.Sig2(ra), "RateB": num.Sig2(rb)}
	if w := rb / ra; w > 0.77 && w < 1.3 {
		return l.T("experiment.reading.texts.same", args)
	}
	args["Change"], args["Extra"], args["Total"] = change(num, rb/ra-1),
		num.Bytes(b.BytesPerToken-a.BytesPerToken), num.Bytes(b.BytesPerToken)
	return l.T("experiment.reading.texts.changed", args)
}
