package lesson

import (
	"context"
	_ "embed"
	"errors"
	"fmt"

	"loupe/engine"
	"loupe/engine/chat"
	"loupe/engine/perf"
	"loupe/format"
	"loupe/kernels"
	"loupe/trace"
	"loupe/trace/stats"
)

// goldBug is the passage of The Gold-Bug the article reads (3,139 tokens
// with Qwen2.5's tokenizer): Legrand's explanation of the cryptogram.
//
//go:embed gold-bug-passage.txt
var goldBug string

// Runner is what the timing chapters run on; *engine.Model has it.
type Runner interface {
	ChatModel
	Info() trace.ModelInfo
	Generate(ctx context.Context, prompt string, opt engine.GenerateOptions, onEvent func(engine.Event)) (*trace.Run, error)
	GenerateChat(ctx context.Context, msgs []chat.Message, think chat.Think, opt engine.GenerateOptions, onEvent func(engine.Event)) (*trace.Run, error)
	WarmUp(ctx context.Context) error
}

var _ Runner = (*engine.Model)(nil)

// MeasureOptions set the timing runs.
type MeasureOptions struct {
	Settings    trace.Settings // of every run (greedy, …); MaxTokens: tokens written per run
	ThinkTokens int            // at most this many with thinking on (0: 2,048)
	// Bandwidth returns the machine's read bandwidth in GB/s (nil: unknown).
	Bandwidth func() (float64, error)
	// Progress (may be nil) says what runs now.
	Progress func(what string)
}

// Plan says what Measure will run and about how long it takes, for a
// card or a log line before it starts: the prompt's own rates (Input.Run)
// applied to goldTokens read and the tokens written, at each level (AVX2
// counted twice as slow).
func Plan(in Input, opt MeasureOptions, goldTokens int) string {
	s := fmt.Sprintf("The Gold-Bug passage (%s) read and %s written with %s kernels",
		format.Plural(goldTokens, "token"), format.Plural(opt.Settings.MaxTokens, "token"), kernels.Active())
	if len(levels()) > 1 {
		s += " and with avx2"
	}
	s += "; the bandwidth"
	s += "; one conversation, then eight written at once"
	if in.ThinkingTemplate {
		s += "; the prompt as a chat turn, thinking on and off"
	}
	s += "; the prompt with the heads that fetch the source off"
	if secs := estimate(in, opt, goldTokens); secs > 0 {
		s += ": about " + format.Duration(format.Round2(secs))
	}
	return s + "."
}

// estimate is Plan's duration in seconds, 0 when the run has no rates.
func estimate(in Input, opt MeasureOptions, goldTokens int) float64 {
	t := in.Run.Timing
	pre, dec := stats.Rate(t.PrefillTokens, t.PrefillSeconds), stats.Rate(t.DecodeTokens, t.DecodeSeconds)
	if pre <= 0 || dec <= 0 {
		return 0
	}
	gold := float64(goldTokens)/pre + float64(opt.Settings.MaxTokens)/dec
	secs := gold
	if len(levels()) > 1 {
		secs += 2 * gold
	}
	if in.ThinkingTemplate {
		secs += float64(thinkTokens(opt)+opt.Settings.MaxTokens) / dec
	}
	return secs + float64(len(in.Run.Tokens))/pre
}

func thinkTokens(opt MeasureOptions) int {
	if opt.ThinkTokens > 0 {
		return opt.ThinkTokens
	}
	return 2048
}

// levels are the kernel levels compute-memory compares: the active one,
// and AVX2 when the active one is faster.
func levels() []kernels.Level {
	ls := []kernels.Level{kernels.Active()}
	if kernels.Active() > kernels.AVX2 && kernels.Supported(kernels.AVX2) {
		ls = append(ls, kernels.AVX2)
	}
	return ls
}

// Measure makes the runs beyond the prompt's own: The Gold-Bug passage at
// each kernel level of levels (cut to the model's context), the
// bandwidth, thinking on and off (a model with a thinking template) and
// the prompt with FetchingHeads switched off. The kernel level is
// restored when it returns; cancelling ctx stops it within a token.
func Measure(ctx context.Context, m Runner, in Input, opt MeasureOptions) (*Extra, error) {
	heads, err := FetchingHeads(in)
	if err != nil {
		return nil, err
	}
	say := func(s string) {
		if opt.Progress != nil {
			opt.Progress(s)
		}
	}
	say("warming up")
	if err := m.WarmUp(ctx); err != nil { // the first pass pays page faults
		return nil, err
	}
	e := &Extra{}
	if err := measureKernels(ctx, m, opt, e, say); err != nil {
		return nil, err
	}
	if opt.Bandwidth != nil {
		say("measuring the memory's read bandwidth")
		if e.BandwidthGBs, err = opt.Bandwidth(); err != nil {
			return nil, err
		}
	}
	if e.Batch, err = measureBatch(ctx, m, opt, e.BandwidthGBs, say); err != nil {
		return nil, err
	}
	if in.ThinkingTemplate {
		if e.ThinkOn, e.ThinkOff, err = measureThinking(ctx, m, in.Run.Prompt, opt, say); err != nil {
			return nil, err
		}
	}
	say(fmt.Sprintf("the prompt again with %d heads switched off", len(heads)))
	eo := engine.DefaultGenerateOptions()
	eo.Attn = engine.AttnCapture{}
	eo.Settings = opt.Settings
	eo.Settings.MaxTokens, eo.Ablate = 1, heads
	run, err := m.Generate(ctx, in.Run.Prompt, eo, nil)
	if err != nil {
		return nil, err
	}
	if len(run.Steps) == 0 {
		return nil, errors.New("the run with the heads switched off wrote no token")
	}
	e.Ablated = &Ablation{Heads: heads, First: run.Steps[0]}
	return e, nil
}

// measureKernels reads and writes The Gold-Bug at each level.
func measureKernels(ctx context.Context, m Runner, opt MeasureOptions, e *Extra, say func(string)) error {
	passage, err := GoldBugFitting(m, opt.Settings.MaxTokens)
	if err != nil {
		return err
	}
	ls := levels()
	defer kernels.SetLevel(ls[0])
	eo := engine.DefaultGenerateOptions()
	eo.Attn, eo.Settings = engine.AttnCapture{}, opt.Settings
	for _, lv := range ls {
		if err := kernels.SetLevel(lv); err != nil {
			return err
		}
		say(fmt.Sprintf("reading and writing The Gold-Bug passage with %s kernels", lv))
		run, err := m.Generate(ctx, passage, eo, nil)
		if err != nil {
			return err
		}
		t := run.Timing
		if e.Gold == nil {
			e.Gold = &t
		}
		e.Kernels = append(e.Kernels, KernelRun{Level: lv.String(), PrefillTokens: t.PrefillTokens,
			PrefillSeconds: t.PrefillSeconds, DecodeTokens: t.DecodeTokens, DecodeSeconds: t.DecodeSeconds})
	}
	return nil
}

// GoldBugTokens is how many tokens of The Gold-Bug passage GoldBugFitting
// keeps.
func GoldBugTokens(m Runner, maxTokens int) int {
	return min(len(m.Tokenizer().Encode(goldBug)), m.Info().MaxPositions-maxTokens-1)
}

// GoldBugFitting is The Gold-Bug passage, cut to leave room in the
// model's context for maxTokens written.
func GoldBugFitting(m Runner, maxTokens int) (string, error) {
	tok := m.Tokenizer()
	n := GoldBugTokens(m, maxTokens)
	if n < 1 {
		return "", fmt.Errorf("%d tokens to write leave no room for The Gold-Bug passage in the model's context of %d", maxTokens, m.Info().MaxPositions)
	}
	return perf.PromptOfTokens(goldBug, n, tok.Encode, tok.Decode)
}

// measureThinking asks the prompt as a chat turn with thinking on, then off.
func measureThinking(ctx context.Context, m Runner, prompt string, opt MeasureOptions, say func(string)) (on, off *trace.Timing, err error) {
	var out [2]*trace.Timing
	for i, think := range []chat.Think{chat.ThinkOn, chat.ThinkOff} {
		eo := engine.DefaultGenerateOptions()
		eo.Attn, eo.Settings = engine.AttnCapture{}, opt.Settings
		word := "off"
		if think == chat.ThinkOn {
			word = "on"
			eo.Settings.MaxTokens = thinkTokens(opt)
		}
		say("the prompt as a chat turn, thinking " + word)
		run, err := m.GenerateChat(ctx, []chat.Message{{Role: "user", Content: prompt}}, think, eo, nil)
		if err != nil {
			return nil, nil, err
		}
		out[i] = &run.Timing
	}
	return out[0], out[1], nil
}
