package stats

import (
	"math"
	"slices"

	"loupe/trace"
)

// Rate is n per second (tokens per second), 0 for a phase that took no
// time, so that a status line reads "0.0 tok/s" rather than NaN; the
// figures, which write "–" for an unknown, use Ratio.
func Rate(n int, seconds float64) float64 {
	return OrZero(Ratio(float64(n), seconds))
}

// Ratio is a/b, NaN unless b is positive and finite: the one answer for
// 0/0 (and x/0) is "unknown", which a figure writes "–", never 0, which
// would read as a measured zero. A JSON record, which cannot hold NaN,
// writes it as OrZero(Ratio(a, b)).
func Ratio(a, b float64) float64 {
	if !(b > 0) || math.IsInf(b, 0) {
		return math.NaN()
	}
	return a / b
}

// OrZero is x, or 0 when x is NaN or ±Inf: how a derived number that is
// unknown (Ratio's NaN) is written where NaN cannot go (JSON, a status
// line's "0.0 tok/s").
func OrZero(x float64) float64 {
	if finite(x) {
		return x
	}
	return 0
}

// Median is the middle value of xs, the mean of the two middle ones for an
// even count, 0 for none (a record with no runs). xs is not modified.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// DecodeGBs is the read bandwidth decode achieved: bytes read per forward
// pass × passes (trace.DecodePasses) / seconds, in GB/s; NaN when the
// bytes or the time are unknown.
func DecodeGBs(t trace.Timing) float64 {
	if !(t.BytesPerToken > 0) {
		return math.NaN()
	}
	return Ratio(float64(trace.DecodePasses(t.DecodeTokens)), t.DecodeSeconds) * t.BytesPerToken / 1e9
}
