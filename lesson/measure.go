package lesson

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"loupe/assets"
	"loupe/engine"
	"loupe/engine/chat"
	"loupe/engine/perf"
	"loupe/format"
	"loupe/i18n"
	"loupe/kernels"
	"loupe/trace"
	"loupe/trace/stats"
)

// goldBug is the passage of The Gold-Bug the article reads (3,139 tokens
// with Qwen2.5's tokenizer): Legrand's explanation of the cryptogram.
var goldBug = assets.GoldBugPassage

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
	Settings trace.Settings // of every run (greedy, …); MaxTokens: tokens written per run
	// Kernels is the window's kernel choice: every run but the AVX2
	// one computes with it (the zero Choice: the kernels in use).
	Kernels     kernels.Choice
	ThinkTokens int // at most this many with thinking on (0: 2,048)
	// Bandwidth returns the machine's read bandwidth in GB/s (nil: unknown).
	Bandwidth func() (float64, error)
	// Progress (may be nil) says what runs now.
	Progress func(what string)
}

// Plan says what Measure will run and about how long it takes, for a
// card or a log line before it starts: the prompt's own rates (Input.Run)
// applied to goldTokens read and the tokens written, at each level (AVX2
// counted twice as slow).
//
// It is said in in.Lang, as the chapters are.
func Plan(in Input, opt MeasureOptions, goldTokens int) string {
	l, num := in.Lang, in.Lang.Numbers()
	tokens := func(n int) string { return l.N("unit.token", n, i18n.Args{"N": num.Thousands(int64(n))}) }
	key := "lesson.plan.one"
	if len(levels(opt.choice())) > 1 {
		key = "lesson.plan.two"
	}
	parts := []string{l.T(key, i18n.Args{"Read": tokens(goldTokens), "Written": tokens(opt.Settings.MaxTokens),
		"Level": opt.choice().Level().String(), "Other": kernels.AVX2.String()}), l.T("lesson.plan.bandwidth", nil)}
	parts = append(parts, l.T("lesson.plan.batch", nil))
	if in.ThinkingTemplate {
		parts = append(parts, l.T("lesson.plan.thinking", nil))
	}
	parts = append(parts, l.T("lesson.plan.ablation", nil))
	s := strings.Join(parts, l.T("lesson.plan.sep", nil))
	if secs := estimate(in, opt, goldTokens); secs > 0 {
		s = l.T("lesson.plan.about", i18n.Args{"Plan": s, "Time": num.Duration(format.Round2(secs))})
	}
	return s + "."
}

// Estimate is Plan's duration in seconds, 0 when the run has no rates:
// what a narrow card says of the runs instead of the whole plan.
func Estimate(in Input, opt MeasureOptions, goldTokens int) float64 {
	return estimate(in, opt, goldTokens)
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
	if len(levels(opt.choice())) > 1 {
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

// choice is the window's kernel choice, the kernels in use when none is
// given.
func (opt MeasureOptions) choice() kernels.Choice {
	if opt.Kernels.IsZero() {
		return kernels.Current()
	}
	return opt.Kernels
}

// levels are the kernel choices compute-memory compares: the window's,
// and AVX2 (its own arithmetic) when the window's level is faster.
func levels(c kernels.Choice) []kernels.Choice {
	ls := []kernels.Choice{c}
	if c.Level() > kernels.AVX2 && kernels.Supported(kernels.AVX2) {
		ls = append(ls, kernels.AtLevel(kernels.AVX2))
	}
	return ls
}

// Measure makes the runs beyond the prompt's own: The Gold-Bug passage at
// each kernel level of levels (cut to the model's context), the
// bandwidth, thinking on and off (a model with a thinking template) and
// the prompt with FetchingHeads switched off. Every run names its kernel
// choice (opt.Kernels, and AVX2 for the second level), so none computes
// with what another left; cancelling ctx stops it within a token.
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
	opt.Kernels = opt.choice()
	t := func(key string, args i18n.Args) string { return in.Lang.T("lesson.progress."+key, args) }
	say(t("warmup", nil))
	if err := m.WarmUp(ctx); err != nil { // the first pass pays page faults
		return nil, err
	}
	e := &Extra{}
	if err := measureKernels(ctx, m, opt, e, in.Lang, func(lv kernels.Level) { say(t("gold", i18n.Args{"Level": lv.String()})) }); err != nil {
		return nil, err
	}
	if opt.Bandwidth != nil {
		say(t("bandwidth", nil))
		if e.BandwidthGBs, err = opt.Bandwidth(); err != nil {
			return nil, err
		}
	}
	if e.Batch, err = measureBatch(ctx, m, opt, e.BandwidthGBs, func() { say(t("batch", nil)) }); err != nil {
		return nil, err
	}
	if in.ThinkingTemplate {
		var runs [2]*trace.Run
		if runs, err = measureThinking(ctx, m, in.Run.Prompt, opt, func(on bool) {
			say(t(map[bool]string{true: "thinkon", false: "thinkoff"}[on], nil))
		}); err != nil {
			return nil, err
		}
		e.ThinkOn, e.ThinkOff = &runs[0].Timing, &runs[1].Timing
		keep(e, runs[0], in.Lang, "lesson.run.thinkon", nil)
		keep(e, runs[1], in.Lang, "lesson.run.thinkoff", nil)
	}
	say(in.Lang.N("lesson.progress.ablation", len(heads), i18n.Args{"N": len(heads)}))
	eo := engine.DefaultGenerateOptions()
	eo.Attn, eo.Kernels = engine.AttnCapture{}, opt.Kernels
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
	keep(e, run, in.Lang, "lesson.run.ablation", nil)
	return e, nil
}

// measureKernels reads and writes The Gold-Bug at each level; say
// tells which level runs.
func measureKernels(ctx context.Context, m Runner, opt MeasureOptions, e *Extra, lang i18n.Lang, say func(kernels.Level)) error {
	passage, err := GoldBugFitting(m, opt.Settings.MaxTokens)
	if err != nil {
		return err
	}
	eo := engine.DefaultGenerateOptions()
	eo.Attn, eo.Settings = engine.AttnCapture{}, opt.Settings
	for _, c := range levels(opt.Kernels) {
		eo.Kernels = c
		say(c.Level())
		run, err := m.Generate(ctx, passage, eo, nil)
		if err != nil {
			return err
		}
		t := run.Timing
		if e.Gold == nil {
			e.Gold = &t
		}
		keep(e, run, lang, "lesson.run.gold", i18n.Args{"Level": t.Kernels})
		// The level and arithmetic the run reports it computed with.
		e.Kernels = append(e.Kernels, KernelRun{Level: t.Kernels, Arithmetic: t.Arithmetic, PrefillTokens: t.PrefillTokens,
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

// measureThinking asks the prompt as a chat turn with thinking on, then
// off; say tells which.
func measureThinking(ctx context.Context, m Runner, prompt string, opt MeasureOptions, say func(on bool)) (onOff [2]*trace.Run, err error) {
	for i, think := range []chat.Think{chat.ThinkOn, chat.ThinkOff} {
		eo := engine.DefaultGenerateOptions()
		eo.Attn, eo.Settings, eo.Kernels = engine.AttnCapture{}, opt.Settings, opt.Kernels
		if think == chat.ThinkOn {
			eo.Settings.MaxTokens = thinkTokens(opt)
		}
		say(think == chat.ThinkOn)
		if onOff[i], err = m.GenerateChat(ctx, []chat.Message{{Role: "user", Content: prompt}}, think, eo, nil); err != nil {
			return onOff, err
		}
	}
	return onOff, nil
}

// keep names run after what it measured (the key's sentence) and adds it
// to e.Runs.
func keep(e *Extra, run *trace.Run, l i18n.Lang, key string, args i18n.Args) {
	run.Origin = l.T(key, args)
	e.Runs = append(e.Runs, run)
}
