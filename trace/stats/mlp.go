package stats

import (
	"cmp"
	"math"
	"slices"
)

// MLPStats summarises the magnitudes of an MLP activation silu(gate)·up
// the way the article does: "half under 0.08, nearly 300 above 0.5, 70
// above 1, the largest 3.3".
type MLPStats struct {
	N         int     // finite values counted
	MedianAbs float64 // half of |v| are at most this
	Above05   int     // |v| > 0.5
	Above1    int     // |v| > 1
	MaxAbs    float64
}

// SummarizeMLP computes MLPStats over the finite values (NaN medians and
// maxima when there is none).
func SummarizeMLP(values []float32) MLPStats {
	var abs []float64
	for _, v := range values {
		if x := float64(v); finite(x) {
			abs = append(abs, math.Abs(x))
		}
	}
	s := MLPStats{N: len(abs), MedianAbs: math.NaN(), MaxAbs: math.NaN()}
	if len(abs) == 0 {
		return s
	}
	slices.Sort(abs)
	s.MedianAbs = Median(abs)
	s.MaxAbs = abs[len(abs)-1]
	for _, a := range abs {
		if a > 0.5 {
			s.Above05++
		}
		if a > 1 {
			s.Above1++
		}
	}
	return s
}

// LargestAbs returns the n finite values of largest magnitude, sorted from
// the most positive to the most negative: the article's MLP figure,
// positive on top, negative below.
func LargestAbs(values []float32, n int) []float64 {
	var vs []float64
	for _, v := range values {
		if x := float64(v); finite(x) {
			vs = append(vs, x)
		}
	}
	slices.SortStableFunc(vs, func(a, b float64) int { return cmp.Compare(math.Abs(b), math.Abs(a)) })
	vs = vs[:max(0, min(n, len(vs)))]
	slices.SortFunc(vs, func(a, b float64) int { return cmp.Compare(b, a) })
	return vs
}
