package stats

import (
	"math"

	"loupe/trace"
)

// Softmax turns scores into shares that add up to 1, in float64:
// p_i = e^(s_i − max) / Σ_j e^(s_j − max); subtracting the max keeps exp
// from overflowing. NaN scores get 0; scores with no finite maximum give
// all zeros. The engine's vocabulary-wide softmax is the vector kernel
// (engine/sample.Softmax); this one is for the few scores a figure shows.
func Softmax(scores []float64) []float64 {
	m := math.Inf(-1)
	for _, s := range scores {
		if !math.IsNaN(s) {
			m = max(m, s)
		}
	}
	out := make([]float64, len(scores))
	var sum float64
	for i, s := range scores {
		if !math.IsNaN(s) && !math.IsInf(m, 0) {
			out[i] = math.Exp(s - m)
			sum += out[i]
		}
	}
	for i := range out {
		out[i] = OrZero(out[i] / sum)
	}
	return out
}

// ProbabilityOf is token id's probability at step s: the chosen token's or
// a top-k candidate's p (bound false); outside the top-k, the k-th's p, an
// upper bound on id's (bound true); 0 and bound when nothing was recorded.
func ProbabilityOf(s trace.Step, id int) (p float64, bound bool) {
	if s.Chosen.ID == id {
		return s.Chosen.P, false
	}
	for _, c := range s.Top {
		if c.ID == id {
			return c.P, false
		}
	}
	if len(s.Top) > 0 {
		return s.Top[len(s.Top)-1].P, true
	}
	return 0, true
}
