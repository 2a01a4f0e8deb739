package stats

import (
	"math"

	"loupe/trace"
)

// Rate is n per second (tokens per second), 0 for a phase that took no
// time, so that a status line reads "0.0 tok/s" rather than NaN; the
// figures, which write "–" for an unknown, use Ratio.
func Rate(n int, seconds float64) float64 {
	if r := Ratio(float64(n), seconds); r == r {
		return r
	}
	return 0
}

// Ratio is a/b, NaN unless b is positive and finite.
func Ratio(a, b float64) float64 {
	if !(b > 0) || math.IsInf(b, 0) {
		return math.NaN()
	}
	return a / b
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
