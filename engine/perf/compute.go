package perf

import (
	"strings"
	"sync/atomic"
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

// computeTrials and computeTrial size the probe: 200 trials of ~1 ms
// each, back to back (the clock reaches its all-core speed within the
// first ones), 0.2 s in all. The best trial is the figure: on a shared
// machine a trial of 40 ms is almost never run by every core from start
// to end (the development VM under load 25: 2 threads 65–217 GFLOP/s by
// the best of 5 such trials, where a C loop's best 1 ms trial read 433,
// twice its one-thread 217).
const (
	computeTrials = 200
	computeTrial  = time.Millisecond
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
// when only some parts do ("bf16:experts"), and likewise the faster of the
// integer tiles' loop and FMA's when the quantised matrices' prefill
// multiplies in integers ("int8+prefill"): each product ran on one of
// them, so neither rate can be beaten and the share stays a lower bound.
// Setting an fp32 prefill against VDPBF16PS's rate would misstate it
// either way: that loop does half FMA's operations a cycle on some
// AVX512BF16 CPUs and twice them on others.
func MeasureComputeFor(threads int, arithmetic string) Compute {
	const fp32 = "fp32 FMA"
	own := MeasureCompute
	switch {
	case arithmetic == "int8+prefill" && kernels.Int8PeakLoopName() != "":
		// The quantised matrices multiply in integers, attention in fp32.
		a, b := measureLoop(threads, int8Loop, kernels.Int8PeakLoopName()), measureLoop(threads, fp32Loop, fp32)
		if b.GFLOPs > a.GFLOPs {
			return b
		}
		return a
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
// the operations per second of all of them together. The workers start
// together: each waits (up to barrierWait) until all have arrived, and the
// trial is timed from then to the last one's end. On a shared machine a
// worker's thread may wait milliseconds for a CPU; the caller then runs
// its share after its own, and that trial is timed from the call (one
// core's rate: a best of such trials would say the cores cannot run at
// once).
func loopTrial(p *pool.Pool, loop func(iters int) int64, iters int) float64 {
	n := p.Threads()
	flops := make([]int64, n)
	var arrived atomic.Int32
	var began, ended atomic.Int64 // ns since start
	start := time.Now()
	p.For(n, func(w, _, _ int) {
		if int(arrived.Add(1)) == n {
			began.Store(int64(time.Since(start)))
		}
		for deadline := time.Now().Add(barrierWait); int(arrived.Load()) < n && time.Now().Before(deadline); {
		}
		flops[w] += loop(iters) // a late worker's loop may run on another
		for t := int64(time.Since(start)); ; {
			e := ended.Load()
			if t <= e || ended.CompareAndSwap(e, t) {
				break
			}
		}
	})
	sec := time.Since(start).Seconds()
	var total int64
	together := true
	for _, f := range flops {
		total += f
		together = together && f > 0
	}
	if together && began.Load() > 0 {
		sec = float64(ended.Load()-began.Load()) / 1e9
	}
	return float64(total) / sec
}

// barrierWait bounds how long a trial's workers wait for one another.
const barrierWait = 2 * time.Millisecond
