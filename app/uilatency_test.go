package app

import (
	"testing"
	"time"
)

// The latency line's median is the middle delay, the mean of the two
// middle ones for an even count (2.5 ms of 1, 2, 3 and 40 ms), p95 the
// nearest rank and max the largest.
func TestLatencyLineMedian(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		out := make([]time.Duration, len(xs))
		for i, x := range xs {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	want := "ui latency during generation: 4 samples, median 2.5 ms, p95 40.0 ms, max 40.0 ms"
	if got := latencyLine(ms(40, 1, 3, 2)); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
