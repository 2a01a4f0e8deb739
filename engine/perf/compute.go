package perf

import (
	"time"

	"loupe/engine/pool"
	"loupe/kernels"
)

// Compute is one measurement of the compute peak.
type Compute struct {
	Level           string  `json:"level"` // kernel level the FMA loop ran at
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

// ComputePeak returns the floating-point operations per second (in GFLOP/s)
// that threads workers reach in the FMA loop of the active kernel level,
// with no memory traffic: the ceiling prefill can approach.
func ComputePeak(threads int) (gflops float64) { return MeasureCompute(threads).GFLOPs }

// MeasureCompute is ComputePeak with the details.
func MeasureCompute(threads int) Compute {
	p := pool.New(threads)
	defer p.Close()
	iters := calibrate(computeTrial)
	rates := make([]float64, computeTrials)
	for i := range rates {
		rates[i] = fmaTrial(p, iters)
	}
	g := best(rates) / 1e9
	return Compute{
		Level: kernels.Active().String(), Threads: p.Threads(),
		GFLOPs: g, GFLOPsPerCore: g / float64(p.Threads()),
		SecondsPerTrial: computeTrial.Seconds(),
	}
}

// calibrate finds the iteration count for which one core's FMA loop lasts
// about d, doubling from a small count.
func calibrate(d time.Duration) int {
	iters := 1 << 10
	for {
		start := time.Now()
		fmaLoop(iters)
		el := time.Since(start)
		if el >= d/8 || iters >= 1<<40 {
			return int(float64(iters) * float64(d) / float64(max(el, 1)))
		}
		iters *= 2
	}
}

// fmaTrial runs iters rounds of the FMA loop on every worker at once and
// returns the operations per second of all of them together.
func fmaTrial(p *pool.Pool, iters int) float64 {
	flops := make([]int64, p.Threads())
	start := time.Now()
	p.For(p.Threads(), func(w, _, _ int) { flops[w] += fmaLoop(iters) }) // a late worker's loop may run on another
	sec := time.Since(start).Seconds()
	var total int64
	for _, f := range flops {
		total += f
	}
	return float64(total) / sec
}
