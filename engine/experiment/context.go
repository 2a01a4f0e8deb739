package experiment

import (
	"context"
	"errors"
	"strings"

	"loupe/engine"
	"loupe/i18n"
	"loupe/kernels"
	"loupe/trace"
	"loupe/trace/stats"
)

// runContext times decode with the KV cache holding each context length.
// One decode step reads the weights and every cached key and value, so
// bytes per token = weights + KV bytes per position × context; the
// prediction sets that against the bandwidth. Lengths past the model's
// context end the sweep at the longest the model takes; a cache the
// memory cannot hold ends it where it is.
func runContext(ctx context.Context, m *engine.Model, opt Options, r *Result) error {
	lengths := DefaultContexts
	if opt.Values != nil {
		var err error
		if lengths, err = parseInts(opt.Values, "context"); err != nil {
			return err
		}
	}
	ids := m.Encode(opt.Prompt)
	if len(ids) == 0 {
		return errors.New("experiment: the prompt has no tokens")
	}
	info := m.Info()
	gbs, err := bandwidth(opt, m.Threads())
	if err != nil {
		return err
	}
	r.BandwidthGBs = gbs
	l, num := opt.Lang, opt.Lang.Numbers()
	if !opt.ComputeFill {
		r.Notes = append(r.Notes, l.T("experiment.note.standin", i18n.Args{"N": num.Thousands(int64(opt.PromptTokens))}))
	}
	defer m.ReleaseContext() // gigabytes at 32k that later runs do not need
	maxCtx := info.MaxPositions - opt.DecodeTokens
	for i, n := range lengths {
		if n > maxCtx {
			if i > 0 && lengths[i-1] >= maxCtx || maxCtx < 1 {
				r.Stopped = l.T("experiment.stopped.context", i18n.Args{"Point": label(n), "Max": num.Thousands(int64(info.MaxPositions))})
				break
			}
			r.Stopped = l.T("experiment.stopped.less", i18n.Args{"Point": label(n), "At": num.Thousands(int64(maxCtx)),
				"Max": num.Thousands(int64(info.MaxPositions)), "N": num.Thousands(int64(opt.DecodeTokens))})
			n = maxCtx
		}
		opt.Progress(float64(i)/float64(len(lengths)), l.T("experiment.progress.context", i18n.Args{"Point": label(n),
			"Read": num.Thousands(int64(min(n, opt.PromptTokens))), "Write": num.Thousands(int64(opt.DecodeTokens))}))
		p, err := contextPoint(ctx, m, opt, ids, n, gbs)
		if errors.Is(err, engine.ErrTooLarge) {
			r.Stopped = l.T("experiment.stopped.err", i18n.Args{"Point": label(n), "Err": err.Error()})
			break
		}
		if err != nil {
			return err
		}
		r.Points = append(r.Points, p)
		if n == maxCtx {
			break
		}
	}
	return nil
}

// contextPoint measures one context length (medians over opt.Repeat).
func contextPoint(ctx context.Context, m *engine.Model, opt Options, ids []int, n int, gbs float64) (Point, error) {
	info := m.Info()
	p := Point{Value: n, Label: label(n), WeightBytes: weightBytes(info), BandwidthGBs: gbs}
	p.BytesPerToken = p.WeightBytes + float64(info.KVBytesPerToken)*float64(n)
	p.PredictedDecodeTokS = predict(gbs, p.BytesPerToken)
	var pre, dec []float64
	for range opt.Repeat {
		t, err := m.TimeAtContext(ctx, engine.DeepOptions{Context: n, Ids: ids, Prefill: opt.PromptTokens,
			Decode: opt.DecodeTokens, Compute: opt.ComputeFill, Kernels: opt.Kernels})
		if err != nil {
			return p, err
		}
		p.Run = contextRun(m, opt, ids, t, p.BytesPerToken)
		p.PrefillTokens, p.PrefillSeconds = t.PrefillTokens, t.PrefillSeconds
		p.DecodeTokens, p.DecodeSeconds = t.DecodeTokens, t.DecodeSeconds
		pre = append(pre, rate(t.PrefillTokens, t.PrefillSeconds))
		dec = append(dec, stepRate(t.StepSeconds))
	}
	p.PrefillTokS, p.DecodeTokS = stats.Median(pre), stats.Median(dec)
	return p, nil
}

// stepRate is decode tokens/s from the median step: on a shared
// machine a pass that waited for a CPU is an outlier, not the memory's
// speed, and the median leaves it out.
func stepRate(steps []float64) float64 {
	m := stats.Median(steps)
	if m <= 0 {
		return 0
	}
	return 1 / m
}

// rate is n per second, 0 when nothing was timed.
func rate(n int, seconds float64) float64 {
	if seconds <= 0 {
		return 0
	}
	return float64(n) / seconds
}

// contextRun is one timed pass at a deep context as a run the window's
// history keeps, for Compare and its timing: the tokens it computed (the
// passage cycled, at positions t.Filled …) and those it wrote greedily
// (at n …). It has no steps: the pass keeps no candidates, and over
// stand-in keys and values its text says nothing of the model.
func contextRun(m *engine.Model, opt Options, ids []int, t engine.DeepTiming, bytesPerToken float64) *trace.Run {
	c := opt.Kernels
	if c.IsZero() {
		c = kernels.Current()
	}
	s := trace.Settings{MaxTokens: opt.DecodeTokens, Threads: m.Threads(), Kernels: c.Level().String(), Arithmetic: m.ArithmeticOf(c)}
	run := &trace.Run{Model: m.Info(), Settings: s, StopReason: "max_tokens"}
	var prompt strings.Builder
	for i := range t.PrefillTokens {
		id := ids[i%len(ids)]
		run.Tokens = append(run.Tokens, trace.Token{ID: id, Text: m.TokenText(id), Pos: t.Filled + i})
		prompt.WriteString(m.TokenText(id))
	}
	for i, id := range t.Decoded {
		run.Tokens = append(run.Tokens, trace.Token{ID: id, Text: m.TokenText(id), Pos: t.Context + i, Generated: true})
	}
	run.Prompt = prompt.String()
	run.Timing = trace.Timing{PrefillTokens: t.PrefillTokens, PrefillSeconds: t.PrefillSeconds, DecodeTokens: t.DecodeTokens,
		DecodeSeconds: t.DecodeSeconds, StepSeconds: t.StepSeconds, BytesPerToken: bytesPerToken, Kernels: s.Kernels, Arithmetic: s.Arithmetic}
	return run
}
