package experiment

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"loupe/engine"
	"loupe/i18n"
	"loupe/kernels"
	"loupe/trace"
	"loupe/trace/stats"
)

// runKernels reads and writes the same prompt at every kernel level this
// CPU has: reading (prefill) is computation and follows the level,
// writing (decode) is memory and hardly moves. Where the CPU has a bf16
// level, its two arithmetics are two points: avx512bf16 (activations
// rounded to bf16 in prefill) and exact (every product in fp32).
func runKernels(ctx context.Context, m *engine.Model, opt Options, r *Result) error {
	names, err := kernelNames(opt.Values)
	if err != nil {
		return err
	}
	gbs, err := bandwidth(opt, m.Threads())
	if err != nil {
		return err
	}
	r.BandwidthGBs = gbs
	for i, name := range names {
		o := opt
		o.Kernels, _ = kernels.ChoiceOf(name) // kernelNames checked the names
		if name == kernels.Generic.String() && len(names) > 1 {
			// Pure Go is 100-200 × slower at reading than the best level:
			// fewer tokens give its speed in seconds instead of minutes.
			o.PromptTokens, o.DecodeTokens = max(8, opt.PromptTokens/8), max(4, opt.DecodeTokens/4)
			r.Notes = append(r.Notes, opt.Lang.T("experiment.note.generic", i18n.Args{"Read": o.PromptTokens, "Write": o.DecodeTokens,
				"Prompt": opt.PromptTokens, "Decode": opt.DecodeTokens}))
		}
		opt.Progress(float64(i)/float64(len(names)), progress(opt.Lang, opt.Lang.T("experiment.point.kernels", i18n.Args{"Name": name}), o))
		p, err := runPoint(ctx, m, o, gbs)
		if err != nil {
			return err
		}
		p.Value, p.Label = name, name+" · "+arithmetic(p.Run.Settings.Arithmetic)
		r.Points = append(r.Points, p)
	}
	if note := exactNote(opt, r.Points); note != "" {
		r.Notes = append(r.Notes, note)
	}
	return nil
}

// exactNote says what the exact and avx512bf16 points differ in, when
// both ran: bf16 products are less exact, and faster only where the CPU
// issues them as often as FMAs (AMD's cores; Intel's issue them half as
// often), so the note says which this run measured.
func exactNote(opt Options, points []Point) string {
	var exact, bf *Point
	for i := range points {
		switch points[i].Value {
		case Exact:
			exact = &points[i]
		case kernels.AVX512BF16.String():
			bf = &points[i]
		}
	}
	if exact == nil || bf == nil {
		return ""
	}
	args := i18n.Args{"Level": kernels.BestExact().String()}
	if bf.PrefillTokS > exact.PrefillTokS {
		return opt.Lang.T("experiment.note.exact", args)
	}
	num := opt.Lang.Numbers()
	args["BF"], args["Exact"] = num.Trim(bf.PrefillTokS, 1), num.Trim(exact.PrefillTokS, 1)
	return opt.Lang.T("experiment.note.exact_no_faster", args)
}

// arithmetic is a run's arithmetic as a kernels point's label ends:
// "fp32", "bf16", "int8", "int8+prefill", "bf16+int8".
func arithmetic(a string) string {
	if a == "" {
		return "fp32"
	}
	return a
}

// Exact is the kernels sweep's point of the exact arithmetic: the best
// level with every product in fp32 (--kernels exact).
const Exact = "exact"

// kernelNames are the named levels (and exact), or every level this CPU
// supports, slowest first, with exact before avx512bf16 where the CPU has
// it: the same level's two arithmetics side by side.
func kernelNames(values []string) ([]string, error) {
	var out []string
	if values == nil {
		for _, l := range kernels.Levels() {
			if !kernels.Supported(l) {
				continue
			}
			if kernels.RoundsActivations(l) {
				out = append(out, Exact)
			}
			out = append(out, l.String())
		}
		return out, nil
	}
	for _, v := range values {
		l, ok := kernels.ParseLevel(v)
		if !ok || v == "auto" {
			return nil, fmt.Errorf("experiment: kernel level %q: want generic, avx2, avx512, avx512bf16 or exact", v)
		}
		if !kernels.Supported(l) {
			return nil, fmt.Errorf("experiment: kernel level %s: this CPU (or OS) does not support it", l)
		}
		out = append(out, v)
	}
	return out, nil
}

// runThreads reads and writes the same prompt on 1 … N workers: reading
// scales with the cores, writing flattens at the memory's speed. Each
// point's prediction uses the bandwidth of its own thread count.
func runThreads(ctx context.Context, m *engine.Model, opt Options, r *Result) error {
	counts, err := threadCounts(opt.Values, m.Threads())
	if err != nil {
		return err
	}
	was := m.Threads()
	defer m.SetThreads(was)
	for i, n := range counts {
		gbs, err := bandwidth(opt, n)
		if err != nil {
			return err
		}
		m.SetThreads(n)
		opt.Progress(float64(i)/float64(len(counts)), progress(opt.Lang, threadsName(opt.Lang, n), opt))
		p, err := runPoint(ctx, m, opt, gbs)
		if err != nil {
			return err
		}
		p.Value, p.Label = n, strconv.Itoa(n)
		r.Points = append(r.Points, p)
		r.BandwidthGBs = gbs
	}
	return nil
}

// threadCounts are the named counts, or 1 … the model's thread count
// (its default: the physical cores). More than the logical CPUs is
// refused: the workers would only take turns.
func threadCounts(values []string, threads int) ([]int, error) {
	if values == nil {
		out := make([]int, threads)
		for i := range out {
			out[i] = i + 1
		}
		return out, nil
	}
	out, err := parseInts(values, "threads")
	if err != nil {
		return nil, err
	}
	if n := out[len(out)-1]; n > runtime.NumCPU() {
		return nil, fmt.Errorf("experiment: %d threads: this machine has %d logical CPUs", n, runtime.NumCPU())
	}
	return out, nil
}

// runPoint warms up, then times opt.Repeat greedy runs of the prompt
// (cut to opt.PromptTokens tokens) writing opt.DecodeTokens tokens with
// no stop at end-of-sequence. Speeds are medians; the last run's tokens
// and steps are kept.
func runPoint(ctx context.Context, m *engine.Model, opt Options, gbs float64) (Point, error) {
	prompt := promptOf(m, opt)
	g := engine.DefaultGenerateOptions()
	g.Attn, g.Kernels = engine.AttnCapture{}, opt.Kernels
	g.EOS = []int{} // not nil: nil means the model's stop ids
	g.Settings.MaxTokens = 2
	// The warm-up faults the weights in and grows the buffers; a few
	// tokens do it (reading a long text twice would double the wait).
	warm := opt
	warm.PromptTokens = min(opt.PromptTokens, warmUpTokens)
	if _, err := m.Generate(ctx, promptOf(m, warm), g, nil); err != nil {
		return Point{}, err
	}
	g.Settings.MaxTokens = opt.DecodeTokens
	var pre, dec, bytes []float64
	var last *trace.Run
	for range opt.Repeat {
		run, err := m.Generate(ctx, prompt, g, nil)
		if err != nil {
			return Point{}, err
		}
		if run.StopReason == "cancelled" {
			return Point{}, context.Canceled
		}
		t := run.Timing
		pre = append(pre, rate(t.PrefillTokens, t.PrefillSeconds))
		if len(t.StepSeconds) > 2 { // the first step only samples after prefill
			dec = append(dec, stepRate(t.StepSeconds[1:]))
		} else {
			dec = append(dec, rate(t.DecodeTokens, t.DecodeSeconds))
		}
		bytes = append(bytes, t.BytesPerToken)
		last = run
	}
	t := last.Timing
	p := Point{PrefillTokS: stats.Median(pre), DecodeTokS: stats.Median(dec), BytesPerToken: stats.Median(bytes),
		PrefillTokens: t.PrefillTokens, PrefillSeconds: t.PrefillSeconds,
		DecodeTokens: t.DecodeTokens, DecodeSeconds: t.DecodeSeconds,
		WeightBytes: weightBytes(m.Info()), BandwidthGBs: gbs, FileBytes: m.Info().FileBytes, Steps: last.Steps, Run: last}
	for _, tok := range last.Tokens {
		if tok.Generated {
			p.Ids = append(p.Ids, tok.ID)
		}
	}
	p.PredictedDecodeTokS = predict(gbs, p.BytesPerToken)
	return p, nil
}

// warmUpTokens is the prompt of the untimed run before each point.
const warmUpTokens = 32

// promptOf is opt.Prompt cut to its first opt.PromptTokens tokens (whole
// characters: a cut inside one drops its bytes).
func promptOf(m *engine.Model, opt Options) string {
	ids := m.Encode(opt.Prompt)
	if len(ids) <= opt.PromptTokens {
		return opt.Prompt
	}
	tok := m.Tokenizer()
	if tok == nil {
		return opt.Prompt
	}
	ids = ids[:opt.PromptTokens]
	s := tok.Decode(ids)
	for len(ids) > 1 && strings.HasSuffix(s, "\uFFFD") {
		ids = ids[:len(ids)-1]
		s = tok.Decode(ids)
	}
	return s
}
