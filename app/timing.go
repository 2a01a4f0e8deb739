package app

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"loupe/engine/perf"
	"loupe/engine/pool"
	"loupe/trace"
	"loupe/trace/stats"
)

// windowTiming is what --timing-json writes: the rates of the window's
// last run, with the field names of `loupe bench --json` (prefill and
// decode: tokens, seconds, tokens_per_second), so that a script can set
// the two side by side (scripts/window-bench.sh).
type windowTiming struct {
	Threads  int            `json:"threads"`
	Kernels  string         `json:"kernels"`
	Prefill  phaseRate      `json:"prefill"`
	Decode   phaseRate      `json:"decode"`
	Settings trace.Settings `json:"settings"`
	// WallSeconds and CPUSeconds cover the whole run, from the click to
	// the last token: CPUSeconds/WallSeconds above the engine's (bench's
	// cpu_seconds) is what the window itself took.
	WallSeconds float64 `json:"wall_seconds"`
	CPUSeconds  float64 `json:"cpu_seconds"`
	// StepSeconds is each decode step's wall time, as bench's runs give
	// them: their median is a rate a stall of the machine does not move.
	StepSeconds []float64 `json:"step_seconds"`
	// Pool is what the engine's workers did during decode, as in bench's
	// runs: how long the caller waited for the others, and how often a
	// waiting side parked.
	Pool *pool.Stats `json:"pool,omitempty"`
}

type phaseRate struct {
	Tokens          int     `json:"tokens"`
	Seconds         float64 `json:"seconds"`
	TokensPerSecond float64 `json:"tokens_per_second"`
}

// writeTiming prints the run's rates on stdout and, with --timing-json,
// writes them to that file. A file that cannot be written is reported
// like a failed screenshot (exit status 1 with --quit).
func (fc *host) writeTiming(run *trace.Run) {
	u := fc.ui
	t := run.Timing
	wt := windowTiming{
		WallSeconds: time.Since(u.runStart).Seconds(), CPUSeconds: perf.ProcessCPUSeconds() - u.runCPU,
		Threads: run.Settings.Threads, Kernels: run.Settings.Kernels, Settings: run.Settings,
		Prefill: phaseRate{t.PrefillTokens, t.PrefillSeconds, stats.Rate(t.PrefillTokens, t.PrefillSeconds)},
		Decode:  phaseRate{t.DecodeTokens, t.DecodeSeconds, stats.Rate(t.DecodeTokens, t.DecodeSeconds)},
		Pool:    u.runPool,
	}
	for _, s := range run.Steps {
		wt.StepSeconds = append(wt.StepSeconds, s.Seconds)
	}
	fmt.Printf("loupe: window prefill %d tokens in %.3f s: %.1f tok/s; decode %d tokens in %.3f s: %.2f tok/s (%d threads, kernels %s; %.2f s CPU in %.2f s)\n",
		wt.Prefill.Tokens, wt.Prefill.Seconds, wt.Prefill.TokensPerSecond,
		wt.Decode.Tokens, wt.Decode.Seconds, wt.Decode.TokensPerSecond, wt.Threads, wt.Kernels, wt.CPUSeconds, wt.WallSeconds)
	if u.opt.TimingJSON == "" {
		return
	}
	data, err := json.MarshalIndent(wt, "", "  ")
	if err == nil {
		err = os.WriteFile(u.opt.TimingJSON, append(data, '\n'), 0o644)
	}
	if err != nil {
		u.fail("Timing", fmt.Errorf("--timing-json %s: %w", u.opt.TimingJSON, err))
	}
}
