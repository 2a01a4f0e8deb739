package perf

import (
	"strings"
	"time"

	"loupe/engine/pool"
	"loupe/kernels"
)

// Compute is one measurement of the compute peak.
type Compute struct {
	Level           string  `json:"level"` // kernel level the loop ran at
	Loop            string  `json:"loop"`  // the instruction timed: "fp32 FMA" or "bf16 VDPBF16PS"
	Threads         int     `json:"threads"`
	GFLOPs          float64 `json:"gflops"` // best of the trials, all workers
	GFLOPsPerCore   float64 `json:"gflops_per_core"`
	SecondsPerTrial float64 `json:"seconds_per_trial"`
}

// computeTrials and computeTrial size the probe: 5 trials of ~40 ms each,
// long enough to reach the all-core clock, short enough for `membw`.
const (
	computeTrials = 5
	computeTrial  = 40 * time.Millisecond
)

// MeasureCompute measures the floating-point operations per second that
// threads workers reach in the multiply-add loop of the active kernel
// level (kernels.FMAPeakLoop), with no memory traffic.
func MeasureCompute(threads int) Compute {
	return measureLoop(threads, fmaLoop, kernels.PeakLoopName())
}

// MeasureComputeFor is the ceiling of a prefill whose products are
// arithmetic (engine.Model.Arithmetic): the fp32 FMA loop when they are
// computed in fp32 ("fp32", "int8": decode's 8 bits do not reach prefill),
// the level's own loop (VDPBF16PS at AVX512BF16) when every product rounds
// its activations to bf16 ("bf16", "bf16+int8"), and the faster of the two
// when only some parts do ("bf16:experts"): each product ran on one of
// them, so neither rate can be beaten and the share stays a lower bound.
// Setting an fp32 prefill against VDPBF16PS's rate would misstate it
// either way: that loop does half FMA's operations a cycle on some
// AVX512BF16 CPUs and twice them on others.
func MeasureComputeFor(threads int, arithmetic string) Compute {
	const fp32 = "fp32 FMA"
	own := MeasureCompute
	switch {
	case kernels.PeakLoopName() == fp32:
		return own(threads)
	case !strings.HasPrefix(arithmetic, "bf16"):
		return measureLoop(threads, fp32Loop, fp32)
	case arithmetic == "bf16" || arithmetic == "bf16+int8":
		return own(threads)
	}
	a, b := own(threads), measureLoop(threads, fp32Loop, fp32)
	if b.GFLOPs > a.GFLOPs {
		return b
	}
	return a
}

// measureLoop times loop, named name, on threads workers at once: the best
// of computeTrials trials.
func measureLoop(threads int, loop func(iters int) int64, name string) Compute {
	p := pool.New(threads)
	defer p.Close()
	iters := calibrate(loop, computeTrial)
	rates := make([]float64, computeTrials)
	for i := range rates {
		rates[i] = loopTrial(p, loop, iters)
	}
	g := best(rates) / 1e9
	return Compute{
		Level: kernels.Active().String(), Loop: name, Threads: p.Threads(),
		GFLOPs: g, GFLOPsPerCore: g / float64(p.Threads()),
		SecondsPerTrial: computeTrial.Seconds(),
	}
}

// calibrate finds the iteration count for which one core's loop lasts
// about d, doubling from a small count.
func calibrate(loop func(iters int) int64, d time.Duration) int {
	iters := 1 << 10
	for {
		start := time.Now()
		loop(iters)
		el := time.Since(start)
		if el >= d/8 || iters >= 1<<40 {
			return int(float64(iters) * float64(d) / float64(max(el, 1)))
		}
		iters *= 2
	}
}

// loopTrial runs iters rounds of loop on every worker at once and returns
// the operations per second of all of them together.
func loopTrial(p *pool.Pool, loop func(iters int) int64, iters int) float64 {
	flops := make([]int64, p.Threads())
	start := time.Now()
	p.For(p.Threads(), func(w, _, _ int) { flops[w] += loop(iters) }) // a late worker's loop may run on another
	sec := time.Since(start).Seconds()
	var total int64
	for _, f := range flops {
		total += f
	}
	return float64(total) / sec
}
