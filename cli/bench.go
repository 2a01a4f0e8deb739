package cli

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"

	"loupe/engine"
	"loupe/engine/perf"
	"loupe/kernels"
)

func init() {
	register(Command{
		Name:    "bench",
		Summary: "time prefill and decode of a model against the machine's bandwidth and compute peak",
		Run:     runBench,
	})
}

// purpleCat is the example of the article “The two times of an answer”:
// 17 tokens with the Qwen2.5 tokenizer.
const purpleCat = "My cat is purple. But my friends tell me there is no such thing as a"

// goldBug is testdata/texts/gold-bug-passage.txt (3,139 tokens), the source
// of --prompt-tokens prompts.
//
//go:embed gold-bug-passage.txt
var goldBug string

// benchFlags are the command line of `loupe bench`.
type benchFlags struct {
	model, prompt, promptFile, level string
	kernels                          kernels.Choice // --kernels read: every run's
	cpuProfile                       string
	promptTokens, maxTokens, threads int
	repeat, membwPasses, contend     int
	asJSON, noProbes, freshMembw     bool
	beside, threadsSweep             bool
}

func parseBenchFlags(args []string, stderr io.Writer) (*benchFlags, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &benchFlags{}
	fs.StringVar(&f.model, "model", "", "model folder, .safetensors file, its index.json or a GGUF file (required)")
	fs.StringVar(&f.prompt, "prompt", purpleCat, "prompt text")
	fs.StringVar(&f.promptFile, "prompt-file", "", "read the prompt from this file")
	fs.IntVar(&f.promptTokens, "prompt-tokens", 0, "prompt of the first N tokens of a passage of The Gold-Bug (repeated if needed)")
	fs.IntVar(&f.maxTokens, "max-tokens", 100, "tokens written per run (no stop at end-of-sequence)")
	fs.IntVar(&f.threads, "threads", 0, "workers (0: physical cores)")
	fs.StringVar(&f.level, "kernels", "", kernelsHelp)
	fs.IntVar(&f.repeat, "repeat", 3, "timed runs (after one untimed warm-up); figures are medians")
	fs.IntVar(&f.membwPasses, "membw-passes", 5, "passes of the bandwidth probe when no cached figure exists")
	fs.BoolVar(&f.freshMembw, "fresh-membw", false, "measure bandwidth even if a cached figure exists")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a pprof CPU profile of the runs (warm-up included) to this file")
	fs.BoolVar(&f.noProbes, "no-probes", false, "record no top-10 and no attention (the engine's bare speed)")
	fs.IntVar(&f.contend, "contend", 0, "run N CPU-bound busy processes (loupe busy) beside the timed runs, as a busy desktop would")
	fs.BoolVar(&f.threadsSweep, "threads-sweep", false, "run prefill and decode at 1, 2, … --threads workers (default: the physical cores) and print the gain of each step")
	fs.BoolVar(&f.beside, "beside", true, "measure the read bandwidth just before and after every timed run and set the run's decode against it (the model's weights where larger than the probe's buffer, else the buffer; 3 passes)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	prompts := 0
	fs.Visit(func(fl *flag.Flag) {
		if fl.Name == "prompt" || fl.Name == "prompt-file" || fl.Name == "prompt-tokens" {
			prompts++
		}
	})
	switch {
	case fs.NArg() > 0:
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case f.model == "":
		return nil, errors.New("--model is required (make bench-model writes a 1.5B-shaped one to build/)")
	case prompts > 1:
		return nil, errors.New("give one of --prompt, --prompt-file, --prompt-tokens")
	case f.maxTokens < 1 || f.repeat < 1 || f.membwPasses < 1 || f.threads < 0 || f.promptTokens < 0 || f.contend < 0:
		return nil, errors.New("--max-tokens, --repeat and --membw-passes must be ≥ 1, --threads, --prompt-tokens and --contend ≥ 0")
	}
	return f, nil
}

func runBench(args []string, stdout, stderr io.Writer) int {
	f, err := parseBenchFlags(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, "bench: %v\n", err)
		}
		return 2
	}
	if f.kernels, err = setKernels(f.level); err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if f.threadsSweep {
		return runThreadsSweep(ctx, f, stdout, stderr)
	}
	r, err := bench(ctx, f, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	if f.asJSON {
		return printJSON(stdout, stderr, r)
	}
	perf.WriteText(stdout, r)
	return 0
}

// bench loads the model, measures the machine (bandwidth from the cache
// when there is a figure for this CPU and thread count), runs the timed
// generations and summarises them. Progress goes to log.
func bench(ctx context.Context, f *benchFlags, log io.Writer) (perf.Report, error) {
	if f.promptFile != "" { // before the model: a wrong path should fail in no time
		b, err := os.ReadFile(f.promptFile)
		if err != nil {
			return perf.Report{}, fmt.Errorf("prompt file: %w", err)
		}
		f.prompt = string(b)
	}
	fmt.Fprintf(log, "loading %s\n", f.model)
	m, err := engine.Load(f.model, engine.LoadOptions{Threads: f.threads})
	if err != nil {
		return perf.Report{}, err
	}
	defer m.Close()
	prompt, err := benchPrompt(f, m)
	if err != nil {
		return perf.Report{}, err
	}
	membw, cached, err := benchBandwidth(m, m.Threads(), f, log)
	if err != nil {
		return perf.Report{}, err
	}
	// The peak of the instruction the prefill's products run on: at
	// AVX512BF16, fp32 products are FMA's, not VDPBF16PS's.
	peak := perf.MeasureComputeFor(m.Threads(), m.ArithmeticOf(f.kernels))
	fmt.Fprintf(log, "measured the %s compute peak (%s loop) on %d threads\n", f.kernels.Level(), peak.Loop, m.Threads())
	// The bandwidth probe's buffer is unmapped by now; count the model only.
	_ = perf.ResetPeakRSS()
	// The contenders start after the machine is measured: membw and the
	// compute peak stay the machine's, the runs (and the probes beside
	// them) are what a busy desktop gets.
	busy, err := startContenders(f.contend)
	if err != nil {
		return perf.Report{}, err
	}
	defer busy.stop()
	if f.contend > 0 {
		fmt.Fprintf(log, "%d busy processes (loupe busy) run beside the timed runs\n", f.contend)
	}
	fmt.Fprintf(log, "warm-up, then %d timed runs of %d tokens\n", f.repeat, f.maxTokens)
	stopProfile, err := startProfile(f.cpuProfile)
	if err != nil {
		return perf.Report{}, err
	}
	opt := perf.BenchOptions{Prompt: prompt, MaxTokens: f.maxTokens, Repeat: f.repeat, Probes: !f.noProbes, Kernels: f.kernels}
	if f.beside {
		threads := m.Threads()
		opt.Beside = func() float64 {
			b, err := perf.MeasureBeside(m, threads, besidePasses)
			if err != nil {
				return 0 // the run is then set against membw
			}
			return b.BestGBs
		}
	}
	runs, err := perf.Bench(ctx, m, opt)
	stopProfile()
	busy.stop()
	if err != nil {
		return perf.Report{}, err
	}
	r := perf.Summarize(m.Info(), runs, membw, peak.GFLOPs)
	r.PeakLoop = peak.Loop
	// membw_cached describes membw_gb_per_s: not the cached figure when the
	// runs were set against probes beside them.
	r.Kernels, r.Threads, r.MembwCached, r.Probes = f.kernels.Level().String(), m.Threads(), cached && !r.MembwBeside, !f.noProbes
	r.Arithmetic = m.ArithmeticOf(f.kernels)
	r.Contend = f.contend
	r.QuantArithmetic = m.QuantArithmeticOf(f.kernels)
	r.HugePageShare = perf.HugePageShare()
	return r, nil
}

// benchPrompt is the text of --prompt or --prompt-file (read by bench), or
// the --prompt-tokens prefix of the Gold-Bug passage.
func benchPrompt(f *benchFlags, m *engine.Model) (string, error) {
	if f.promptTokens == 0 {
		return f.prompt, nil
	}
	tok := m.Tokenizer()
	if tok == nil {
		return "", fmt.Errorf("--prompt-tokens: model %s has no tokenizer", f.model)
	}
	return perf.PromptOfTokens(goldBug, f.promptTokens, tok.Encode, tok.Decode)
}

// benchBandwidth returns the best read bandwidth for threads workers: the
// cached figure, or a fresh measurement beside the loaded model m
// (perf.MeasureBeside: its weights, or a buffer of perf.ProbeBytes; saved
// to the cache).
func benchBandwidth(m perf.WeightHolder, threads int, f *benchFlags, log io.Writer) (gbs float64, cached bool, err error) {
	if b, ok := perf.CachedBandwidth(threads); ok && !f.freshMembw {
		fmt.Fprintf(log, "read bandwidth %.1f GB/s (cached, measured %s)\n", b.BestGBs, b.When.Format("2006-01-02 15:04"))
		return b.BestGBs, true, nil
	}
	b, err := perf.MeasureBeside(m, threads, f.membwPasses)
	if err != nil {
		return 0, false, err
	}
	fmt.Fprintf(log, "measured read bandwidth on %d threads: %.1f GB/s (%d passes over %s, %d MiB)\n", threads, b.BestGBs, f.membwPasses, b.Source, b.Bytes>>20)
	if _, err := perf.RememberBandwidth(b); err != nil {
		fmt.Fprintf(log, "warning: %v\n", err)
	}
	return b.BestGBs, false, nil
}

// besidePasses are the passes of the probe beside each run
// (perf.MeasureBeside, as bench's own probe).
const besidePasses = 3

// startProfile starts a CPU profile into path ("" : none) and returns the
// function that stops it.
func startProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	out, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		out.Close()
		return nil, fmt.Errorf("cpu profile %s: %w", path, err)
	}
	return func() { pprof.StopCPUProfile(); out.Close() }, nil
}

// threadsSweepResult is the --json form of bench --threads-sweep.
type threadsSweepResult struct {
	Model      string           `json:"model"`
	Kernels    string           `json:"kernels"`
	Arithmetic string           `json:"arithmetic"`
	Repeat     int              `json:"repeat"`
	Steps      []perf.SweepStep `json:"threads_sweep"`
}

// runThreadsSweep is bench --threads-sweep: the same runs at 1, 2, … N workers
// (N: --threads, else the physical cores), each step's medians and gains.
func runThreadsSweep(ctx context.Context, f *benchFlags, stdout, stderr io.Writer) int {
	r, err := threadsSweep(ctx, f, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	if f.asJSON {
		return printJSON(stdout, stderr, r)
	}
	fmt.Fprintf(stdout, "model %s, kernels %s (%s arithmetic), median of %d runs a step\n", r.Model, r.Kernels, r.Arithmetic, r.Repeat)
	perf.WriteSweep(stdout, r.Steps)
	return 0
}

func threadsSweep(ctx context.Context, f *benchFlags, log io.Writer) (threadsSweepResult, error) {
	if f.promptFile != "" {
		b, err := os.ReadFile(f.promptFile)
		if err != nil {
			return threadsSweepResult{}, fmt.Errorf("prompt file: %w", err)
		}
		f.prompt = string(b)
	}
	fmt.Fprintf(log, "loading %s\n", f.model)
	m, err := engine.Load(f.model, engine.LoadOptions{Threads: f.threads})
	if err != nil {
		return threadsSweepResult{}, err
	}
	defer m.Close()
	prompt, err := benchPrompt(f, m)
	if err != nil {
		return threadsSweepResult{}, err
	}
	n := m.Threads()
	opt := perf.BenchOptions{Prompt: prompt, MaxTokens: f.maxTokens, Repeat: f.repeat, Probes: !f.noProbes, Kernels: f.kernels}
	steps, err := perf.Sweep(ctx, m, opt, n, func(s perf.SweepStep) {
		fmt.Fprintf(log, "%d thread(s): prefill %.1f tok/s, decode %.2f passes/s\n", s.Threads, s.PrefillTokensPerSecond, s.DecodePassesPerSecond)
	})
	if err != nil {
		return threadsSweepResult{}, err
	}
	return threadsSweepResult{Model: m.Info().Name, Kernels: f.kernels.Level().String(), Arithmetic: m.ArithmeticOf(f.kernels),
		Repeat: f.repeat, Steps: steps}, nil
}
