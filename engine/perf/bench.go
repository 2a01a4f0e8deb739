package perf

import (
	"context"
	"fmt"
	"strings"
	"time"

	"loupe/engine"
	"loupe/engine/pool"
	"loupe/kernels"
	"loupe/trace"
)

// Generator is what Bench drives: *engine.Model satisfies it.
type Generator interface {
	Generate(ctx context.Context, prompt string, opt engine.GenerateOptions, onEvent func(engine.Event)) (*trace.Run, error)
	Info() trace.ModelInfo
}

// BenchOptions describe one benchmark.
type BenchOptions struct {
	Prompt    string
	MaxTokens int  // tokens written per run
	Repeat    int  // timed runs; the figures are their medians
	Probes    bool // record top-10 and attention as the app does
	// Beside, when set, measures the read bandwidth (GB/s) just before and
	// just after every timed run, and the run is set against the higher of
	// the two. On a shared machine the bandwidth a core gets moves within
	// seconds (2 threads on the development VM: 50 and 82 GB/s a minute
	// apart), so only a figure from the same moment says how close decode
	// came to the machine's limit.
	Beside func() float64
	// Kernels is every run's kernel choice (the zero Choice: the kernels
	// in use).
	Kernels kernels.Choice
}

// Sample is one timed run.
type Sample struct {
	Timing      trace.Timing `json:"timing"`
	TTFTSeconds float64      `json:"time_to_first_token_seconds"` // Generate call to the first token event
	StopReason  string       `json:"stop_reason"`
	WallSeconds float64      `json:"wall_seconds"`             // the whole Generate call
	CPUSeconds  float64      `json:"cpu_seconds"`              // process CPU time during it (0: unknown)
	MembwGBs    float64      `json:"membw_gb_per_s,omitempty"` // read bandwidth beside the run (BenchOptions.Beside)
	PeakRSS     int64        `json:"peak_rss_bytes,omitempty"` // peak resident set at the end of the run
	// Pool is what the workers did during decode (from the end of prefill
	// to the end of the run), where the Generator reports it.
	Pool *pool.Stats `json:"pool,omitempty"`
}

// poolReporter is a Generator that reports its workers (*engine.Model).
type poolReporter interface {
	PoolStats() pool.Stats
	ResetPoolStats()
}

// Bench warms up with one untimed run (it faults the weights into the page
// cache and grows every buffer and the KV cache), then runs Repeat timed
// generations of opt.Prompt and returns them. The warm-up writes 2 tokens.
//
// The run never stops at an end-of-sequence token (EOS is empty), so every
// run writes MaxTokens tokens and runs are comparable.
func Bench(ctx context.Context, g Generator, opt BenchOptions) ([]Sample, error) {
	if opt.Repeat < 1 || opt.MaxTokens < 1 {
		return nil, fmt.Errorf("perf: bench: repeat %d and max tokens %d must be ≥ 1", opt.Repeat, opt.MaxTokens)
	}
	warm := benchGenerateOptions(opt)
	warm.Settings.MaxTokens = min(2, opt.MaxTokens)
	if _, err := g.Generate(ctx, opt.Prompt, warm, nil); err != nil {
		return nil, fmt.Errorf("perf: bench: warm-up run: %w", err)
	}
	samples := make([]Sample, 0, opt.Repeat)
	for i := range opt.Repeat {
		before := beside(opt)
		s, err := timedRun(ctx, g, opt)
		if err != nil {
			return nil, fmt.Errorf("perf: bench: run %d of %d: %w", i+1, opt.Repeat, err)
		}
		s.PeakRSS = PeakRSS()
		s.MembwGBs = max(before, beside(opt))
		samples = append(samples, s)
	}
	return samples, nil
}

// benchGenerateOptions is greedy decoding without stop ids; with probes the
// app's defaults (top-10, attention of the last prompt and every generated
// token), without them nothing recorded.
func benchGenerateOptions(opt BenchOptions) engine.GenerateOptions {
	g := engine.DefaultGenerateOptions()
	if !opt.Probes {
		g.TopN, g.Attn = 0, engine.AttnCapture{}
	}
	g.Settings.MaxTokens = opt.MaxTokens
	g.EOS = []int{} // not nil: nil means the model's stop ids
	g.Kernels = opt.Kernels
	return g
}

// timedRun runs one generation and times the first token as the user sees
// it: from the call to the first Token or Step event (tokenizing, prefill,
// sampling). The engine sends Token right after sampling and Step after the
// token's forward pass, so Step alone would add one decode step.
func timedRun(ctx context.Context, g Generator, opt BenchOptions) (Sample, error) {
	var ttft float64
	pr, _ := g.(poolReporter)
	cpu0, start := processCPUSeconds(), time.Now()
	run, err := g.Generate(ctx, opt.Prompt, benchGenerateOptions(opt), func(e engine.Event) {
		if (e.Token != nil || e.Step != nil) && ttft == 0 {
			ttft = time.Since(start).Seconds()
		}
		if e.Prefill != nil && pr != nil {
			pr.ResetPoolStats()
		}
	})
	if err != nil {
		return Sample{}, err
	}
	if run.StopReason == "cancelled" {
		return Sample{}, context.Canceled
	}
	wall, cpu := time.Since(start).Seconds(), processCPUSeconds()-cpu0
	s := Sample{Timing: run.Timing, TTFTSeconds: ttft, StopReason: run.StopReason, WallSeconds: wall, CPUSeconds: cpu}
	if pr != nil {
		st := pr.PoolStats()
		s.Pool = &st
	}
	return s, nil
}

// PromptOfTokens returns a prompt of about n tokens: the first n tokens of
// text, repeated as needed, decoded back to text. A trailing token that ends
// inside a UTF-8 character (decoded as U+FFFD) is dropped, so the prompt may
// be a token shorter; the run reports the count it prefilled.
func PromptOfTokens(text string, n int, encode func(string) []int, decode func([]int) string) (string, error) {
	ids := encode(text)
	if len(ids) == 0 || n < 1 {
		return "", fmt.Errorf("perf: prompt of %d tokens from a text of %d tokens", n, len(ids))
	}
	prefix := make([]int, 0, n)
	for len(prefix) < n {
		prefix = append(prefix, ids[:min(len(ids), n-len(prefix))]...)
	}
	s := decode(prefix)
	for len(prefix) > 1 && strings.HasSuffix(s, "\uFFFD") {
		prefix = prefix[:len(prefix)-1]
		s = decode(prefix)
	}
	return s, nil
}

// beside runs the bandwidth probe of opt, if any. Its buffer is gone when
// it returns, so the peak resident set is reset to leave it out of the
// next run's figure.
func beside(opt BenchOptions) float64 {
	if opt.Beside == nil {
		return 0
	}
	gbs := opt.Beside()
	_ = ResetPeakRSS()
	return gbs
}

// ProcessCPUSeconds is the user + system CPU time this process has used (0
// where the OS does not say): the window times its runs with it as bench
// does, so that the CPU its drawing takes shows beside the engine's.
func ProcessCPUSeconds() float64 { return processCPUSeconds() }
