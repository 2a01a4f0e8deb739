package experiment

import (
	"context"
	"strconv"

	"loupe/engine"
	"loupe/engine/perf"
	"loupe/i18n"
	"loupe/kernels"
	"loupe/trace/stats"
)

// Batch is the sweep of several conversations at once: B sequences
// written together, each weight read serving B tokens (engine.GenerateBatch).
const Batch = "batch"

// DefaultBatches are the batch sweep's sizes.
var DefaultBatches = []int{1, 2, 4, 8, 16}

// BatchPromptTokens is what each conversation of the batch sweep reads
// when Options.PromptTokens is 0: short, so that reading B prompts one
// after another does not outlast the writing it measures.
const BatchPromptTokens = 32

// runBatch writes opt.DecodeTokens tokens of B conversations at once for
// each B, each conversation reading its own passage of opt.Prompt, and
// sets the total writing speed against the roofline's two ceilings: the
// memory's (bandwidth / bytes per written token, which the batch divides)
// and the compute peak's (peak / operations per written token, which it
// does not change).
func runBatch(ctx context.Context, m *engine.Model, opt Options, r *Result) error {
	sizes := DefaultBatches
	if opt.Values != nil {
		var err error
		if sizes, err = parseInts(opt.Values, "batch"); err != nil {
			return err
		}
	}
	gbs, err := bandwidth(opt, m.Threads())
	if err != nil {
		return err
	}
	opt.Progress(0, opt.Lang.T("experiment.progress.peak", nil))
	peak := perf.MeasureComputeFor(m.Threads(), batchArithmetic(m, opt.Kernels))
	r.BandwidthGBs, r.PeakGFLOPs, r.PeakLoop = gbs, peak.GFLOPs, peak.Loop
	if err := warmBatch(ctx, m, opt); err != nil {
		return err
	}
	for i, b := range sizes {
		opt.Progress(float64(i)/float64(len(sizes)), progress(opt.Lang, opt.Lang.N("experiment.point.batch", b, i18n.Args{"N": opt.Lang.Numbers().Thousands(int64(b))}), opt))
		p, err := batchPoint(ctx, m, opt, b, gbs, peak.GFLOPs)
		if err != nil {
			return err
		}
		r.Points = append(r.Points, p)
	}
	return nil
}

// batchArithmetic is what a batch's products compute in: fp32 for bf16
// and f32 matrices (a written token's arithmetic, whatever prefill's), the
// prefill's for a quantised file's matrices.
func batchArithmetic(m *engine.Model, c kernels.Choice) string {
	if m.QuantArithmeticOf(c) == "" {
		return "fp32"
	}
	return m.ArithmeticOf(c)
}

// warmBatch faults the weights in with one short conversation.
func warmBatch(ctx context.Context, m *engine.Model, opt Options) error {
	g := batchOptions(2, opt.Kernels)
	_, err := m.GenerateBatch(ctx, conversations(m, opt, 1), g, nil)
	return err
}

// batchOptions is greedy writing of n tokens with no stop at
// end-of-sequence (every conversation writes all of them) and no top-N,
// computed with the kernel choice k.
func batchOptions(n int, k kernels.Choice) engine.GenerateOptions {
	g := engine.DefaultGenerateOptions()
	g.TopN, g.Attn, g.EOS, g.Kernels = 0, engine.AttnCapture{}, []int{}, k
	g.Settings.MaxTokens = n
	return g
}

// batchPoint times opt.Repeat batches of b conversations. Writing speed
// is the median pass's rows per second (robust to a pass that waited for a
// CPU); the figures are set against gbs and peak (GFLOP/s) by perf.Batch.
func batchPoint(ctx context.Context, m *engine.Model, opt Options, b int, gbs, peak float64) (Point, error) {
	prompts := conversations(m, opt, b)
	var pre, dec []float64
	var last *engine.BatchRun
	for range opt.Repeat {
		run, err := m.GenerateBatch(ctx, prompts, batchOptions(opt.DecodeTokens, opt.Kernels), nil)
		if err != nil {
			return Point{}, err
		}
		if ctx.Err() != nil {
			return Point{}, context.Canceled
		}
		t := run.Timing
		pre = append(pre, rate(promptTokens(run), t.PrefillSeconds))
		dec = append(dec, passRate(t))
		last = run
	}
	t := last.Timing
	f := perf.Batch(m.Info(), t, stats.Median(dec), gbs, peak)
	return Point{Value: b, Label: strconv.Itoa(b), PrefillTokS: stats.Median(pre), DecodeTokS: f.DecodeTokS,
		PerSequenceTokS: f.PerSequenceTokS, BytesPerToken: f.BytesPerToken, GFLOPs: f.GFLOPs,
		ShareOfPeak: f.ShareOfPeak, ShareOfBandwidth: f.ShareOfBandwidth,
		PredictedDecodeTokS: f.Predicted, PredictedTokS: f.Predicted,
		MemoryCeilingTokS: f.MemoryCeiling, ComputeCeilingTokS: f.ComputeCeiling,
		PrefillTokens: promptTokens(last), PrefillSeconds: t.PrefillSeconds,
		DecodeTokens: t.DecodeTokens, DecodeSeconds: t.DecodeSeconds,
		WeightBytes: weightBytes(m.Info()), BandwidthGBs: gbs, FileBytes: m.Info().FileBytes}, nil
}

// passRate is the median pass's tokens written per second (its rows over
// its seconds), all conversations together.
func passRate(t engine.BatchTiming) float64 {
	rates := make([]float64, len(t.PassSeconds))
	for i, s := range t.PassSeconds {
		rates[i] = rate(t.PassRows[i], s)
	}
	return stats.Median(rates)
}

func promptTokens(r *engine.BatchRun) int {
	n := 0
	for _, run := range r.Runs {
		n += run.Timing.PrefillTokens
	}
	return n
}

// conversations are b prompts of opt.PromptTokens tokens each, passages
// of opt.Prompt that start at different tokens, so that no two
// conversations write the same text.
func conversations(m *engine.Model, opt Options, b int) []string {
	out := make([]string, b)
	tok := m.Tokenizer()
	ids := m.Encode(opt.Prompt)
	n := opt.PromptTokens
	for i := range out {
		out[i] = opt.Prompt
		if tok == nil || len(ids) <= n {
			continue
		}
		start := i * 7 % (len(ids) - n + 1)
		out[i] = tok.Decode(ids[start : start+n])
	}
	return out
}

// batchReading is the sentence under the batch sweep's figure, from its
// first point a and last b, in l: what the batch gained in total, what
// each conversation lost, and which ceiling bounds writing at b.
func batchReading(a, b Point, l i18n.Lang) string {
	n, ok := b.Value.(int)
	first, _ := a.Value.(int)
	if !ok || a.DecodeTokS <= 0 || b.PerSequenceTokS <= 0 {
		return ""
	}
	num := l.Numbers()
	t := func(key string, args i18n.Args) string { return l.T("experiment.reading.batch."+key, args) }
	convs := func(k int) string { return l.N("unit.conversation", k, i18n.Args{"N": num.Thousands(int64(k))}) }
	s := t("gain", i18n.Args{"At": convs(n), "N": num.Thousands(int64(n)), "Gain": times(num, b.DecodeTokS/a.DecodeTokS),
		"From": convs(first), "Wait": times(num, a.PerSequenceTokS/b.PerSequenceTokS)})
	switch {
	case b.MemoryCeilingTokS <= 0 || b.ComputeCeilingTokS <= 0:
		return s + "."
	case b.ComputeCeilingTokS < b.MemoryCeilingTokS:
		return s + t("compute", i18n.Args{"Comp": num.Sig2(b.ComputeCeilingTokS), "Mem": num.Sig2(b.MemoryCeilingTokS),
			"Share": num.Percent(b.ShareOfPeak)})
	}
	return s + t("memory", i18n.Args{"Mem": num.Sig2(b.MemoryCeilingTokS), "Comp": num.Sig2(b.ComputeCeilingTokS),
		"Share": num.Percent(b.ShareOfBandwidth)})
}
