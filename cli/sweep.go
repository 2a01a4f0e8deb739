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
	"loupe/i18n"
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
	lang                                           string // --lang: "en", "fr", "" for the system's
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
	fs.StringVar(&f.level, "kernels", "auto", "kernel level outside the kernels sweep: auto, avx512bf16, avx512, avx2, neoni8mm, neonbf16, neondot, neon, generic")
	fs.BoolVar(&f.computeFill, "compute-fill", false, "context: compute every cached position instead of filling the cache with stand-in values (minutes at 32k)")
	fs.BoolVar(&f.freshMembw, "fresh-membw", false, "measure bandwidth even if a cached figure exists")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object")
	fs.StringVar(&f.lang, "lang", "", "the language of the table, notes and reading: en or fr (default: the system's, from LC_ALL, LC_MESSAGES or LANG); --json is the same in every language")
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
	if _, err := i18n.Choose(f.lang, os.Getenv); err != nil {
		return nil, err
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
	lang := f.language()
	for _, n := range r.Notes {
		fmt.Fprintln(stderr, lang.T("sweep.note", i18n.Args{"Note": n}))
	}
	if r.Stopped != "" {
		fmt.Fprintln(stderr, lang.T("sweep.stopped", i18n.Args{"Why": r.Stopped}))
	}
	if r.Cancelled {
		fmt.Fprintln(stderr, "sweep: cancelled")
		return 130
	}
	if f.asJSON {
		return printJSON(stdout, stderr, r)
	}
	writeSweep(stdout, r, lang)
	return 0
}

// language is the text's language: --lang, else the system's. JSON is
// English whatever it is (its notes and labels are the same in every
// language).
func (f *sweepFlags) language() i18n.Lang {
	if f.asJSON {
		return i18n.English
	}
	l, _ := i18n.Choose(f.lang, os.Getenv) // checked by parseSweepFlags
	return l
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
		ComputeFill: f.computeFill, Kernels: f.kernels, Lang: f.language(),
		Bandwidth: func(threads int) (float64, error) { return sweepBandwidth(m, threads, f.freshMembw, log) },
		Progress: func(frac float64, what string) {
			fmt.Fprintf(log, "[%5s] %s\n", f.language().Numbers().PercentWhole(frac), what)
		},
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

// writeSweep prints the points as a table in l, numbers in its notation.
func writeSweep(w io.Writer, r experiment.Result, l i18n.Lang) {
	if r.What == experiment.Batch {
		writeBatchPoints(w, r)
		return
	}
	n := l.Numbers()
	col := func(k string) string { return l.T("sweep.col."+k, nil) }
	fmt.Fprintf(w, "%-12s %12s %12s %14s %14s\n", r.What, col("prefill"), col("decode"), col("bytes"), col("predicted"))
	for _, p := range r.Points {
		fmt.Fprintf(w, "%-12s %12s %12s %14s %14s\n", p.Label, n.Fixed(p.PrefillTokS, 1), n.Fixed(p.DecodeTokS, 2),
			n.Fixed(p.BytesPerToken/1e6, 1)+n.Space()+n.Unit("MB"), n.Fixed(p.PredictedDecodeTokS, 2))
	}
	fmt.Fprintln(w, l.T("sweep.bandwidth", i18n.Args{"GBs": n.GBs(r.BandwidthGBs)}))
	if s := experiment.ReadingIn(r, l); s != "" {
		fmt.Fprintln(w, s)
	}
}
