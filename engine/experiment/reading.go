package experiment

import (
	"fmt"
	"math"

	"loupe/format"
)

// Reading is the one sentence under a sweep's figure that reads its
// result, e.g. "reading took 5.9 × longer with generic than with
// avx512bf16; writing changed by 2 %". Empty for fewer than two points.
func Reading(r Result) string {
	ps := r.Points
	if len(ps) < 2 {
		return ""
	}
	a, b := ps[0], ps[len(ps)-1]
	switch r.What {
	case Context:
		return fmt.Sprintf("At %s positions each token written reads %s instead of %s at %s: writing went from %s to %s tokens/s (memory allows %s to %s).",
			b.Label, format.Bytes(b.BytesPerToken), format.Bytes(a.BytesPerToken), a.Label,
			format.Sig2(a.DecodeTokS), format.Sig2(b.DecodeTokS), format.Sig2(a.PredictedDecodeTokS), format.Sig2(b.PredictedDecodeTokS))
	case Kernels:
		s := fmt.Sprintf("Reading took %s longer with %s than with %s; writing changed by %s.",
			times(b.PrefillTokS/a.PrefillTokS), a.Label, b.Label, percent(a.DecodeTokS/b.DecodeTokS-1))
		if w := b.DecodeTokS / a.DecodeTokS; w > 1.25 {
			s = fmt.Sprintf("Reading took %s longer with %s than with %s, and writing %s longer too: on this model writing waits for computation, not only for memory.",
				times(b.PrefillTokS/a.PrefillTokS), a.Label, b.Label, times(w))
		}
		return s + arithmetics(ps)
	case Threads:
		pre, dec := b.PrefillTokS/a.PrefillTokS, b.DecodeTokS/a.DecodeTokS
		s := fmt.Sprintf("From %s to %s threads reading sped up %s, writing %s", a.Label, b.Label, times(pre), times(dec))
		if pre < 1 {
			// More workers were slower: they waited for CPUs that another
			// program held (seen on a shared 2-core machine).
			return fmt.Sprintf("From %s to %s threads reading ran at %s the speed, writing at %s: the extra threads waited for CPUs another program was using; run it again on a quiet machine.",
				a.Label, b.Label, times(pre), times(dec))
		}
		if pre > 1.2*dec {
			return s + ": writing gains less, it waits for the memory, which more cores do not widen."
		}
		return s + "."
	case Texts:
		s := fmt.Sprintf("Reading %s tokens took %s of %s, %s tokens %s of %s; writing %d tokens ran at %s and %s tokens/s",
			format.Thousands(a.PrefillTokens), percentOfTotal(a.PrefillSeconds, a.PrefillSeconds+a.DecodeSeconds), a.Label,
			format.Thousands(b.PrefillTokens), percentOfTotal(b.PrefillSeconds, b.PrefillSeconds+b.DecodeSeconds), b.Label,
			a.DecodeTokens, format.Sig2(a.DecodeTokS), format.Sig2(b.DecodeTokS))
		if w := b.DecodeTokS / a.DecodeTokS; w > 0.77 && w < 1.3 {
			return s + ": reading follows the prompt, writing does not."
		}
		return s + fmt.Sprintf(": reading follows the prompt; writing changed by %s, each token also reading the longer text's KV cache (%s of %s a token) and, on a busy machine, waiting for a CPU.",
			percent(b.DecodeTokS/a.DecodeTokS-1), format.Bytes(b.BytesPerToken-a.BytesPerToken), format.Bytes(b.BytesPerToken))
	case Batch:
		return batchReading(a, b)
	case Quant:
		s := ""
		for _, p := range ps[1:] {
			if s != "" {
				s += "; "
			}
			s += fmt.Sprintf("the %s copy reads %.2f × the bytes of %s per token and wrote %s as fast", p.Label, p.BytesPerToken/a.BytesPerToken, a.Label, times(p.DecodeTokS/a.DecodeTokS))
		}
		return upper(s) + "."
	}
	return ""
}

// percentOfTotal is part / total as "1.1 %".
func percentOfTotal(part, total float64) string {
	if !(total > 0) {
		return "–"
	}
	return format.Percent(part / total)
}

// times writes a ratio as "5.9 ×".
func times(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "? ×"
	}
	return fmt.Sprintf("%.1f ×", x)
}

// percent writes a relative change as "2 %" or "−3 %".
func percent(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "? %"
	}
	return fmt.Sprintf("%.0f %%", 100*x)
}

func upper(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-32) + s[1:]
}

// arithmetics compares the kernels sweep's two arithmetics of the bf16
// level, when it measured both: what exact fp32 products cost in reading.
func arithmetics(ps []Point) string {
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
	return fmt.Sprintf(" Exact fp32 products read at %s tokens/s, bf16 ones at %s (%s the exact speed); writing changed by %s.",
		format.Sig2(ex.PrefillTokS), format.Sig2(bf.PrefillTokS), times(bf.PrefillTokS/ex.PrefillTokS),
		percent(bf.DecodeTokS/ex.DecodeTokS-1))
}
