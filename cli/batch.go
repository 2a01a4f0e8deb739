package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"

	"loupe/engine"
	"loupe/engine/experiment"
	"loupe/format"
	"loupe/trace"
)

// readBatchPrompts reads --batch-prompts: one prompt a line, blank lines
// skipped (a prompt cannot hold a newline).
func readBatchPrompts(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--batch-prompts: %w", err)
	}
	var prompts []string
	for _, line := range strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n") {
		if strings.TrimSpace(line) != "" {
			prompts = append(prompts, line)
		}
	}
	if len(prompts) == 0 {
		return nil, fmt.Errorf("--batch-prompts %s holds no prompt: write one prompt a line", path)
	}
	return prompts, nil
}

// checkBatchRun refuses the run flags a batch does not take.
func (f *runFlags) checkBatchRun() error {
	switch {
	case f.prompt != "":
		return errors.New("give --prompt or --batch-prompts, not both")
	case f.chat.chat:
		return errors.New("--chat runs one conversation: drop --batch-prompts")
	case f.ablate != "" || f.disableExperts != "" || f.topKExperts != 0 || f.branch != nil:
		return errors.New("--ablate, --disable-experts, --top-k-experts and --branch-at run one prompt at a time: drop --batch-prompts")
	}
	return nil
}

// batchRunResult is the --json form of `loupe run --batch-prompts`.
type batchRunResult struct {
	Model      string          `json:"model"`
	Sequences  []batchSequence `json:"sequences"`
	Batch      int             `json:"batch"` // sequences written together
	Prefill    runPhase        `json:"prefill"`
	Decode     runPhase        `json:"decode"` // all sequences: tokens written, seconds
	DecodeTokS float64         `json:"decode_tok_s"`
	Passes     int             `json:"passes"` // batched forward passes
	// BytesPerToken is what the passes read per token written: the
	// weights once a pass for all its sequences, each sequence's KV.
	BytesPerToken float64 `json:"bytes_per_token"`
	Kernels       string  `json:"kernels"`
	Arithmetic    string  `json:"arithmetic"`
	Threads       int     `json:"threads"`
	Seed          uint64  `json:"seed"`
	Greedy        bool    `json:"greedy"`
}

// batchSequence is one prompt's run: the prompt, then what `loupe run
// --json` prints for it (prompt_ids, tokens with their top10, text, …).
type batchSequence struct {
	Prompt string `json:"prompt"`
	runResult
}

// runBatchPrompts is `loupe run --batch-prompts FILE`: the prompts written
// together (engine.GenerateBatch), then each continuation and the batch's
// timing, or --json.
func runBatchPrompts(f *runFlags, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "loupe run: %v\n", err)
		return 1
	}
	if err := f.checkBatchRun(); err != nil {
		fmt.Fprintf(stderr, "loupe run: %v\n", err)
		return 2
	}
	prompts, err := readBatchPrompts(f.batchPrompts)
	if err != nil {
		return fail(err)
	}
	if f.kernels, err = setKernels(f.level); err != nil {
		return fail(err)
	}
	path, err := modelPath(f.model)
	if err != nil {
		return fail(err)
	}
	m, err := engine.Load(path, engine.LoadOptions{Threads: f.threads})
	if err != nil {
		return fail(err)
	}
	defer m.Close()
	if !f.seedSet && f.settings.Temperature > 0 {
		f.settings.Seed = randomSeed()
	}
	opt := engine.DefaultGenerateOptions()
	opt.Settings, opt.Attn, opt.Kernels = f.settings, engine.AttnCapture{}, f.kernels
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	b, err := m.GenerateBatch(ctx, prompts, opt, nil)
	if err != nil {
		return fail(err)
	}
	r := batchJSON(m, prompts, b)
	if f.asJSON {
		return printJSON(stdout, stderr, r)
	}
	printBatch(stdout, r)
	return 0
}

// batchJSON is the --json form of a batch: each sequence as run's JSON.
func batchJSON(m *engine.Model, prompts []string, b *engine.BatchRun) batchRunResult {
	t := b.Timing
	r := batchRunResult{Model: m.Info().Path, Batch: len(prompts), Prefill: runPhase{Seconds: t.PrefillSeconds},
		Decode: runPhase{t.DecodeTokens, t.DecodeSeconds}, Passes: len(t.PassRows), BytesPerToken: t.BytesPerToken()}
	for i, run := range b.Runs {
		seq := batchSequence{Prompt: prompts[i], runResult: runJSON(run, continuation(m, run))}
		r.Sequences = append(r.Sequences, seq)
		r.Prefill.Tokens += run.Timing.PrefillTokens
		r.Kernels, r.Arithmetic, r.Threads = run.Settings.Kernels, run.Settings.Arithmetic, run.Settings.Threads
		r.Seed, r.Greedy = run.Settings.Seed, run.Settings.Temperature == 0
	}
	if t.DecodeSeconds > 0 {
		r.DecodeTokS = float64(t.DecodeTokens) / t.DecodeSeconds
	}
	return r
}

// continuation is the text a run wrote, its EOS token left out as the
// streamed text of `loupe run` leaves it.
func continuation(m *engine.Model, run *trace.Run) string {
	var ids []int
	for _, tok := range run.Tokens {
		if tok.Generated && !slices.Contains(m.EOS(), tok.ID) {
			ids = append(ids, tok.ID)
		}
	}
	if tk := m.Tokenizer(); tk != nil {
		return tk.Decode(ids)
	}
	return ""
}

// printBatch writes each sequence's continuation, then the batch's timing.
func printBatch(w io.Writer, r batchRunResult) {
	for i, s := range r.Sequences {
		fmt.Fprintf(w, "[%d] %s%s\n    (%s, stop: %s)\n", i+1, s.Prompt, s.Text, format.Plural(len(s.Tokens), "token"), s.StopReason)
	}
	fmt.Fprintf(w, "\n%s written together: prefill %d tokens in %.3f s; decode %d tokens in %.3f s, %.1f tok/s in all, %s a written token\n",
		format.Plural(r.Batch, "sequence"), r.Prefill.Tokens, r.Prefill.Seconds, r.Decode.Tokens, r.Decode.Seconds, r.DecodeTokS, format.Bytes(r.BytesPerToken))
	fmt.Fprintf(w, "kernels %s (%s arithmetic), %d threads\n", r.Kernels, r.Arithmetic, r.Threads)
}

// benchBatch is `loupe bench --batch B`: the batch sweep's one point,
// B conversations of --prompt-tokens (default 32) tokens of The
// Gold-Bug each, --max-tokens written, medians of --repeat runs.
func benchBatch(ctx context.Context, f *benchFlags, b int, stdout, stderr io.Writer) int {
	fmt.Fprintf(stderr, "loading %s\n", f.model)
	m, err := engine.Load(f.model, engine.LoadOptions{Threads: f.threads})
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	defer m.Close()
	opt := experiment.Options{What: experiment.Batch, Values: []string{fmt.Sprint(b)}, Prompt: goldBug,
		PromptTokens: f.promptTokens, DecodeTokens: f.maxTokens, Repeat: f.repeat, Kernels: f.kernels,
		Bandwidth: func(threads int) (float64, error) { return sweepBandwidth(m, threads, f.freshMembw, stderr) },
		Progress:  func(_ float64, what string) { fmt.Fprintln(stderr, what) }}
	r, err := experiment.Run(ctx, m, opt)
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 1
	}
	if r.Cancelled || len(r.Points) == 0 {
		fmt.Fprintln(stderr, "bench: cancelled")
		return 130
	}
	if f.asJSON {
		return printJSON(stdout, stderr, r)
	}
	writeBatchPoints(stdout, r)
	return 0
}

// writeBatchPoints prints the batch sweep's points against the roofline.
func writeBatchPoints(w io.Writer, r experiment.Result) {
	fmt.Fprintf(w, "%5s %12s %12s %12s %10s %8s %8s %12s %12s %12s\n", "batch", "decode t/s", "per seq t/s", "bytes/token",
		"GFLOP/s", "of peak", "of bw", "memory t/s", "compute t/s", "predicted")
	for _, p := range r.Points {
		fmt.Fprintf(w, "%5s %12.2f %12.2f %9.1f MB %10.1f %8s %8s %12.2f %12.2f %12.2f\n", p.Label, p.DecodeTokS, p.PerSequenceTokS,
			p.BytesPerToken/1e6, p.GFLOPs, format.Percent(p.ShareOfPeak), format.Percent(p.ShareOfBandwidth),
			p.MemoryCeilingTokS, p.ComputeCeilingTokS, p.PredictedTokS)
	}
	fmt.Fprintf(w, "read bandwidth %.1f GB/s, compute peak %.1f GFLOP/s (%s loop)\n", r.BandwidthGBs, r.PeakGFLOPs, r.PeakLoop)
	if s := experiment.Reading(r); s != "" {
		fmt.Fprintln(w, s)
	}
}
