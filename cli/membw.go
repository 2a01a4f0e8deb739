package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"loupe/engine"
	"loupe/engine/perf"
	"loupe/kernels"
)

func init() {
	register(Command{
		Name:    "membw",
		Summary: "measure memory read bandwidth and the compute peak",
		Usage: `usage: loupe membw [--threads N] [--passes N] [--mib N] [--json]

Measures how fast this machine reads memory (GB/s: the best, every 32 MiB
window at its fastest, and the median of --passes reads of a buffer much
larger than the caches) and the compute peak of the kernels (GFLOP/s),
the two limits that decode and prefill are set against. A full-size
measurement is remembered for the window and loupe bench.`,
		Run: runMembw,
	})
}

// membwResult is the --json form of `loupe membw`.
type membwResult struct {
	CPU      string `json:"cpu"`
	Kernels  string `json:"kernels"`
	Threads  int    `json:"threads"`
	Pinned   int    `json:"pinned"`
	ReadLoop string `json:"read_loop"`
	Source   string `json:"source"` // what was read: "buffer" or "model weights"

	BufferBytes   int64   `json:"buffer_bytes"`
	Passes        int     `json:"passes"`
	BestGBs       float64 `json:"best_gb_per_s"`
	MedianGBs     float64 `json:"median_gb_per_s"`
	BestWindowGBs float64 `json:"best_window_gb_per_s"` // the fastest 32 MiB alone
	GFLOPs        float64 `json:"gflops"`
	GFLOPsPerCore float64 `json:"gflops_per_core"`
	ComputeLoop   string  `json:"compute_loop"` // what gflops timed: "fp32 FMA" or "bf16 VDPBF16PS"
	// FP32GFLOPs is the fp32 FMA loop's figure where compute_loop is
	// another (AVX512BF16): the ceiling of fp32 products.
	FP32GFLOPs float64 `json:"fp32_gflops,omitempty"`
}

func runMembw(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("membw", flag.ContinueOnError)
	threads := fs.Int("threads", 0, threadsHelp)
	passes := fs.Int("passes", 10, "passes over the buffer, each timed by windows of 32 MiB (more passes where they hold fewer than 128 windows)")
	mib := fs.Int("mib", int(perf.ProbeBytes()>>20), "buffer size in MiB (keep it ≫ the last-level cache; the default is 4 × this CPU's, 64 to 208)")
	model := fs.String("model", "", "read this model's weights in place instead of a buffer (as the window and bench do when they are larger than the buffer)")
	level := fs.String("kernels", "", "kernels of the compute probe: "+kernelsHelp)
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parseFlags(fs, args, stdout); err != nil {
		return flagExit(err, "membw", stderr)
	}
	if *passes < 1 || *mib < 1 || *threads < 0 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "membw: --passes and --mib must be ≥ 1, --threads ≥ 0, and no other arguments")
		return 2
	}
	if _, err := setKernels(*level); err != nil {
		fmt.Fprintf(stderr, "membw: %v\n", err)
		return 2
	}
	bw, err := measureMembw(*model, *threads, *passes, int64(*mib)<<20)
	if err != nil {
		fmt.Fprintf(stderr, "membw: %v\n", err)
		return 1
	}
	// Only full-size measurements go to the cache the app and bench read;
	// it keeps the best recent figure (a busy machine only measures low).
	if bw.Bytes >= perf.ProbeBytes() {
		if _, err := perf.RememberBandwidth(bw); err != nil {
			fmt.Fprintf(stderr, "membw: warning: %v\n", err)
		}
	}
	c := perf.MeasureCompute(*threads)
	r := membwResult{
		CPU: bw.CPU, Kernels: c.Level, Threads: bw.Threads, Pinned: bw.Pinned,
		ReadLoop: bw.Loop, Source: bw.Source, BufferBytes: bw.Bytes, Passes: bw.Passes,
		BestGBs: bw.BestGBs, MedianGBs: bw.MedianGBs, BestWindowGBs: bw.BestWindowGBs,
		GFLOPs: c.GFLOPs, GFLOPsPerCore: c.GFLOPsPerCore, ComputeLoop: c.Loop,
	}
	if f := perf.MeasureComputeFor(*threads, "fp32"); f.Loop != c.Loop {
		r.FP32GFLOPs = f.GFLOPs
	}
	if *asJSON {
		return printJSON(stdout, stderr, r)
	}
	printMembw(stdout, r)
	return 0
}

// measureMembw reads a buffer of bytes, or the weights of the model at
// path (loaded, then read in place: passes over all of them).
func measureMembw(path string, threads, passes int, bytes int64) (perf.Bandwidth, error) {
	if path == "" {
		return perf.MeasureBandwidth(threads, passes, bytes)
	}
	m, err := engine.Load(path, engine.LoadOptions{Threads: threads})
	if err != nil {
		return perf.Bandwidth{}, err
	}
	defer m.Close()
	return perf.MeasureBandwidthOver(threads, passes, m.WeightPages())
}

// kernelsHelp is the --kernels flag's help of every command.
const kernelsHelp = kernels.FlagHelp

// threadsHelp is the --threads flag's help of every command, the window's.
const threadsHelp = engine.ThreadsHelp

// setKernels reads the kernel choice by name: "auto" the fastest level
// and its arithmetic, "exact" the fastest with every product in fp32, or
// a level. An empty name (the flag not given) takes LOUPE_KERNELS, else
// auto. The choice goes with each run the command makes (its options'
// Kernels); it is also put in use for what runs no model (the compute
// probe).
func setKernels(name string) (kernels.Choice, error) {
	what := "--kernels"
	if name == "" {
		name, what = os.Getenv("LOUPE_KERNELS"), "LOUPE_KERNELS="
	}
	c, ok := kernels.ChoiceOf(name)
	if !ok {
		return c, fmt.Errorf("%s%q: unknown kernels (%s)", what, name, kernels.ChoiceNames())
	}
	return c, kernels.Use(c)
}

func printMembw(w io.Writer, r membwResult) {
	fmt.Fprintf(w, "cpu        %s, threads %d (%d pinned workers + the caller)\n", r.CPU, r.Threads, r.Pinned)
	fmt.Fprintf(w, "read       best %.1f GB/s, median %.1f GB/s (%d MiB of %s × %d passes, %s loop)\n",
		r.BestGBs, r.MedianGBs, r.BufferBytes>>20, r.Source, r.Passes, r.ReadLoop)
	fmt.Fprintf(w, "           best: every 32 MiB window at its fastest; the fastest window alone %.1f GB/s\n", r.BestWindowGBs)
	fmt.Fprintf(w, "compute    %.1f GFLOP/s, %.1f per core (%s, %s loop)\n", r.GFLOPs, r.GFLOPsPerCore, r.Kernels, r.ComputeLoop)
	if r.FP32GFLOPs > 0 {
		fmt.Fprintf(w, "           %.1f GFLOP/s, %.1f per core (fp32 FMA loop: the ceiling of fp32 products)\n",
			r.FP32GFLOPs, r.FP32GFLOPs/float64(max(r.Threads, 1)))
	}
}

// printJSON writes v as one indented JSON object.
func printJSON(stdout, stderr io.Writer, v any) int {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(stderr, "loupe: writing JSON: %v\n", err)
		return 1
	}
	return 0
}
