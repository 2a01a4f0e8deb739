package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"

	"loupe/engine"
	"loupe/engine/experiment"
	"loupe/engine/perf"
	"loupe/format"
	"loupe/kernels"
)

func init() {
	register(Command{
		Name:    "sweep",
		Summary: "measure prefill and decode across contexts, kernel levels, thread counts or weight types",
		Usage: `usage: loupe sweep --model M --what context|kernels|threads|quant [--values V,V…] [flags]

Measures prefill and decode at each value of one setting, the rest held
still: the context already in the cache, the kernel level, the number of
threads or the weights' type; each point is set against the machine's
read bandwidth. The Experiments panel of the window runs the same sweeps.`,
		Run: runSweep,
	})
}

// sweepFlags are the command line of `loupe sweep`.
type sweepFlags struct {
	model, what, values, prompt, promptFile, level string
	kernels                                        kernels.Choice // --kernels read: the runs' outside the kernels sweep
	threads, promptTokens, maxTokens, repeat       int
	asJSON, computeFill, freshMembw                bool
}

// parseSweepFlags reads sweep's command line; --help is written on help.
func parseSweepFlags(args []string, help io.Writer) (*sweepFlags, error) {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	f := &sweepFlags{}
	fs.StringVar(&f.model, "model", "", "model folder, .safetensors file, its index.json or a GGUF file (required)")
	fs.StringVar(&f.what, "what", "", "what to vary: "+strings.Join(experiment.Whats, ", ")+" (required)")
	fs.StringVar(&f.values, "values", "", "comma-separated values (context: 256,1k,…; kernels: generic,avx2,…,exact; threads: 1,2,…; quant: bf16,q8_0,q4_k_m); default: all")
	fs.StringVar(&f.prompt, "prompt", "", "prompt text (default: a passage of The Gold-Bug)")
	fs.StringVar(&f.promptFile, "prompt-file", "", "read the prompt from this file")
	fs.IntVar(&f.promptTokens, "prompt-tokens", experiment.DefaultPromptTokens, "tokens read per point (context: computed just below the context)")
	fs.IntVar(&f.maxTokens, "max-tokens", experiment.DefaultDecodeTokens, "tokens written per point")
	fs.IntVar(&f.repeat, "repeat", 1, "timed runs per point after a warm-up; figures are medians")
	fs.IntVar(&f.threads, "threads", 0, threadsHelp+"; the threads sweep goes from 1 to this")
	fs.StringVar(&f.level, "kernels", "auto", "kernel level outside the kernels sweep: auto, avx512bf16, avx512, avx2, neondot, neon, generic")
	fs.BoolVar(&f.computeFill, "compute-fill", false, "context: compute every cached position instead of filling the cache with stand-in values (minutes at 32k)")
	fs.BoolVar(&f.freshMembw, "fresh-membw", false, "measure bandwidth even if a cached figure exists")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object")
	if err := parseFlags(fs, args, help); err != nil {
		return nil, err
	}
	switch {
	case fs.NArg() > 0:
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case f.model == "":
		return nil, errors.New("--model is required")
	case !slices.Contains(experiment.Whats, f.what):
		return nil, fmt.Errorf("--what %q: want one of %s", f.what, strings.Join(experiment.Whats, ", "))
	case f.prompt != "" && f.promptFile != "":
		return nil, errors.New("give one of --prompt, --prompt-file")
	case f.promptTokens < 1 || f.maxTokens < 1 || f.repeat < 1 || f.threads < 0:
		return nil, errors.New("--prompt-tokens, --max-tokens and --repeat must be ≥ 1, --threads ≥ 0")
	}
	if f.what == experiment.Batch && !isSet(fs, "prompt-tokens") {
		f.promptTokens = 0 // each conversation's own default (experiment.BatchPromptTokens)
	}
	return f, nil
}

func runSweep(args []string, stdout, stderr io.Writer) int {
	f, err := parseSweepFlags(args, stdout)
	if err != nil {
		return flagExit(err, "sweep", stderr)
	}
	if f.kernels, err = setKernels(f.level); err != nil {
		fmt.Fprintf(stderr, "sweep: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	r, err := sweep(ctx, f, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "sweep: %v\n", err)
		return 1
	}
	for _, n := range r.Notes {
		fmt.Fprintf(stderr, "note: %s\n", n)
	}
	if r.Stopped != "" {
		fmt.Fprintf(stderr, "stopped: %s\n", r.Stopped)
	}
	if r.Cancelled {
		fmt.Fprintln(stderr, "sweep: cancelled")
		return 130
	}
	if f.asJSON {
		return printJSON(stdout, stderr, r)
	}
	writeSweep(stdout, r)
	return 0
}

// sweep loads the model and runs the sweep, reporting progress to log.
func sweep(ctx context.Context, f *sweepFlags, log io.Writer) (experiment.Result, error) {
	prompt := f.prompt
	if f.promptFile != "" {
		b, err := os.ReadFile(f.promptFile)
		if err != nil {
			return experiment.Result{}, fmt.Errorf("prompt file: %w", err)
		}
		prompt = string(b)
	}
	if prompt == "" {
		prompt = goldBug
	}
	var values []string
	if f.values != "" {
		values = strings.Split(f.values, ",")
	}
	fmt.Fprintf(log, "loading %s\n", f.model)
	m, err := engine.Load(f.model, engine.LoadOptions{Threads: f.threads})
	if err != nil {
		return experiment.Result{}, err
	}
	defer m.Close()
	opt := experiment.Options{
		What: f.what, Values: values, Prompt: prompt,
		PromptTokens: f.promptTokens, DecodeTokens: f.maxTokens, Repeat: f.repeat,
		ComputeFill: f.computeFill, Kernels: f.kernels,
		Bandwidth: func(threads int) (float64, error) { return sweepBandwidth(m, threads, f.freshMembw, log) },
		Progress:  func(frac float64, what string) { fmt.Fprintf(log, "[%5s] %s\n", format.PercentWhole(frac), what) },
	}
	return experiment.Run(ctx, m, opt)
}

// sweepBandwidth is the best read bandwidth of threads workers: a cached
// figure may come from a minute when the machine was busy (1 thread:
// 4 GB/s cached where 42 is usual), so it is probed again (3 passes beside
// the model m, perf.MeasureBeside) and the better figure kept.
func sweepBandwidth(m perf.WeightHolder, threads int, fresh bool, log io.Writer) (float64, error) {
	gbs, cached, err := benchBandwidth(m, threads, &benchFlags{membwPasses: 5, freshMembw: fresh}, log)
	if err != nil || !cached {
		return gbs, err
	}
	if b, err := reprobe(m, threads); err == nil {
		perf.RememberBandwidth(b)
		if b.BestGBs > gbs {
			fmt.Fprintf(log, "read bandwidth %.1f GB/s on %d threads (probed again)\n", b.BestGBs, threads)
			gbs = b.BestGBs
		}
	}
	return gbs, nil
}

// reprobe measures the bandwidth again; tests replace it (seconds).
var reprobe = func(m perf.WeightHolder, threads int) (perf.Bandwidth, error) {
	return perf.MeasureBeside(m, threads, 3)
}

// writeSweep prints the points as a table.
func writeSweep(w io.Writer, r experiment.Result) {
	if r.What == experiment.Batch {
		writeBatchPoints(w, r)
		return
	}
	fmt.Fprintf(w, "%-12s %12s %12s %14s %14s\n", r.What, "prefill t/s", "decode t/s", "bytes/token", "predicted t/s")
	for _, p := range r.Points {
		fmt.Fprintf(w, "%-12s %12.1f %12.2f %11.1f MB %14.2f\n", p.Label, p.PrefillTokS, p.DecodeTokS, p.BytesPerToken/1e6, p.PredictedDecodeTokS)
	}
	fmt.Fprintf(w, "read bandwidth %.1f GB/s\n", r.BandwidthGBs)
	if s := experiment.Reading(r); s != "" {
		fmt.Fprintln(w, s)
	}
}
