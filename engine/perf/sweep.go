package perf

import (
	"context"
	"fmt"
	"io"
	"loupe/trace/stats"
)

// ThreadsGenerator is a Generator whose worker count can change between
// runs (*engine.Model).
type ThreadsGenerator interface {
	Generator
	SetThreads(n int)
	Threads() int
}

// SweepStep is one thread count of a threads sweep: medians of its timed
// runs, and how much faster it went than the step before and than one
// thread. A step of n threads ideally gains n/(n−1) over the one before.
type SweepStep struct {
	Threads                int     `json:"threads"`
	PrefillTokens          int     `json:"prefill_tokens"`
	PrefillTokensPerSecond float64 `json:"prefill_tokens_per_second"`
	DecodePassesPerSecond  float64 `json:"decode_passes_per_second"`
	PrefillStep            float64 `json:"prefill_step"`    // over the previous step (1 for the first)
	DecodeStep             float64 `json:"decode_step"`     // over the previous step
	PrefillSpeedup         float64 `json:"prefill_speedup"` // over one thread
	DecodeSpeedup          float64 `json:"decode_speedup"`  // over one thread
	CoresBusy              float64 `json:"cores_busy"`      // CPU time / wall time, median: below Threads, workers waited for a CPU
}

// Sweep runs opt (Bench: a warm-up, then opt.Repeat timed runs) at 1, 2,
// …, maxThreads workers, in that order, and returns a step per count;
// done, when set, sees each step as it ends. The model is left at
// maxThreads.
func Sweep(ctx context.Context, g ThreadsGenerator, opt BenchOptions, maxThreads int, done func(SweepStep)) ([]SweepStep, error) {
	if maxThreads < 1 {
		return nil, fmt.Errorf("perf: threads sweep up to %d threads", maxThreads)
	}
	var steps []SweepStep
	for n := 1; n <= maxThreads; n++ {
		g.SetThreads(n)
		runs, err := Bench(ctx, g, opt)
		if err != nil {
			return steps, err
		}
		r := Summarize(g.Info(), runs, 0, 0)
		s := SweepStep{Threads: g.Threads(), PrefillTokens: r.Prefill.Tokens,
			PrefillTokensPerSecond: r.Prefill.TokensPerSecond, DecodePassesPerSecond: r.Decode.PassesPerSecond,
			PrefillStep: 1, DecodeStep: 1, PrefillSpeedup: 1, DecodeSpeedup: 1, CoresBusy: r.CoresBusy}
		if len(steps) > 0 {
			prev, first := steps[len(steps)-1], steps[0]
			s.PrefillStep = stats.OrZero(stats.Ratio(s.PrefillTokensPerSecond, prev.PrefillTokensPerSecond))
			s.DecodeStep = stats.OrZero(stats.Ratio(s.DecodePassesPerSecond, prev.DecodePassesPerSecond))
			s.PrefillSpeedup = stats.OrZero(stats.Ratio(s.PrefillTokensPerSecond, first.PrefillTokensPerSecond))
			s.DecodeSpeedup = stats.OrZero(stats.Ratio(s.DecodePassesPerSecond, first.DecodePassesPerSecond))
		}
		steps = append(steps, s)
		if done != nil {
			done(s)
		}
	}
	return steps, nil
}

// WriteSweep prints a sweep as a table: rates, the gain of each step over
// the one before (ideal n/(n−1)) and over one thread (ideal n).
func WriteSweep(w io.Writer, steps []SweepStep) {
	fmt.Fprintf(w, "%7s  %14s  %6s  %6s  %13s  %6s  %6s  %10s\n",
		"threads", "prefill tok/s", "step", "× 1", "decode pass/s", "step", "× 1", "cores busy")
	for _, s := range steps {
		fmt.Fprintf(w, "%7d  %14.1f  %6.2f  %6.2f  %13.2f  %6.2f  %6.2f  %10.2f\n", s.Threads,
			s.PrefillTokensPerSecond, s.PrefillStep, s.PrefillSpeedup,
			s.DecodePassesPerSecond, s.DecodeStep, s.DecodeSpeedup, s.CoresBusy)
	}
	if len(steps) > 0 {
		fmt.Fprintf(w, "step: the rate over the row above (ideal n/(n−1)); × 1: over one thread (ideal n); prefill of %d tokens\n",
			steps[0].PrefillTokens)
	}
}
