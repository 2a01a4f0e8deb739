// Package perf measures what bounds the engine: the memory bandwidth a
// streaming read reaches, the compute peak of the active kernel level, the
// process's peak resident memory, and the prefill/decode figures of a model
// (Bench). The membw and bench commands print them; the app shows the
// cached bandwidth next to the decode speed.
//
// Decode reads every weight once per token, so its speed is bounded by
// bandwidth / bytes per token; prefill multiplies the same weights by many
// tokens at once, so it is bounded by the compute peak. Each figure here is
// measured the way the engine works: on the pool's pinned workers, each
// streaming its own contiguous band.
package perf

import (
	"github.com/klauspost/cpuid/v2"
)

// CPUName is the processor's brand string ("AMD Ryzen 9 9900X ..."), or
// "unknown".
func CPUName() string {
	if cpuid.CPU.BrandName == "" {
		return "unknown"
	}
	return cpuid.CPU.BrandName
}

// best returns the largest value of xs, or 0 for none.
func best(xs []float64) float64 {
	var b float64
	for _, x := range xs {
		b = max(b, x)
	}
	return b
}
