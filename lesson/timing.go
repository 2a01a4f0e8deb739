package lesson

import (
	"strings"

	"loupe/i18n"
	"loupe/kernels"
	"loupe/trace"
	"loupe/trace/stats"
)

// OutputFigures: the first step's top-10 and what the output head weighs.
type OutputFigures struct {
	Top10      []trace.Candidate `json:"top10"`
	Chosen     trace.Candidate   `json:"chosen"`
	Tied       bool              `json:"tied"`
	HeadParams int64             `json:"head_params"`
	Total      int64             `json:"params_total"`
	ReadShare  float64           `json:"read_share"`
}

func outputChapter(f *facts) Chapter {
	first := f.gen[0]
	head, total, share := stats.OutputReadShare(f.info)
	fig := OutputFigures{Top10: append([]trace.Candidate{}, first.Top...), Chosen: first.Chosen, Tied: f.info.TiedEmbeddings,
		HeadParams: head, Total: total, ReadShare: share}
	var b strings.Builder
	b.WriteString(f.t("output.compare", i18n.Args{"Query": f.tok(f.tokenText(f.query)), "Vocab": f.num.Thousands(int64(f.info.Vocab))}))
	b.WriteString(f.t("output.top", i18n.Args{"List": f.listCandidates(fig.Top10, 3)}))
	a := i18n.Args{"Part": f.paramsPart(head, total), "Share": f.num.Percent(share)}
	if fig.Tied {
		b.WriteString(f.t("output.tied", a))
	} else {
		b.WriteString(f.t("output.untied", a))
	}
	return Chapter{ID: Output, Title: f.t("output.title", nil), Text: b.String(), Figures: fig,
		Question: f.t("output.question", i18n.Args{"Query": f.tok(f.tokenText(f.query))}),
		Show:     Show{Tab: "Next token", Query: f.query, Source: -1, Layer: -1, Head: -1}}
}

// paramsPart says how many of the model's total parameters part holds:
// "16 M parameters out of 233 M", or, where the two round to the same
// count, the share ("95.1 % of its 16 M parameters", not "16 M out of
// 16 M"), or all of them.
func (f *facts) paramsPart(part, total int64) string {
	a := i18n.Args{"Part": f.num.Count(part), "Total": f.num.Count(total)}
	switch {
	case part >= total:
		return f.t("params.all", a)
	case a["Part"] == a["Total"]:
		a["Share"] = f.num.Percent(float64(part) / float64(total))
		return f.t("params.most", a)
	}
	return f.t("params.part", a)
}

func (f *facts) listCandidates(cs []trace.Candidate, n int) string {
	var parts []string
	for _, c := range cs[:min(n, len(cs))] {
		parts = append(parts, f.tok(c.Text)+" "+f.num.Percent(c.P))
	}
	return strings.Join(parts, ", ")
}

// LoopFigures: the first generated tokens with their probabilities.
type LoopFigures struct {
	Tokens    []trace.Candidate `json:"tokens"`
	Generated int               `json:"generated"`
	Greedy    bool              `json:"greedy"`
}

func loopChapter(f *facts) Chapter {
	fig := LoopFigures{Generated: len(f.gen), Greedy: f.in.Run.Settings.Temperature == 0}
	for _, s := range f.gen[:min(8, len(f.gen))] {
		fig.Tokens = append(fig.Tokens, s.Chosen)
	}
	var b strings.Builder
	choose := "loop.greedy"
	if !fig.Greedy {
		choose = "loop.sampled"
	}
	b.WriteString(f.t(choose, i18n.Args{"List": f.listCandidates(fig.Tokens, 4)}))
	b.WriteString(f.t("loop.only", i18n.Args{"Tokens": f.tokens(fig.Generated)}))
	pos := f.query + 1
	return Chapter{ID: Loop, Title: f.t("loop.title", nil), Text: b.String(), Figures: fig,
		Show: Show{Tab: "Next token", Query: pos, Source: -1, Layer: -1, Head: -1}}
}

// TwoTimesFigures: reading (prefill) and writing (decode) of the prompt,
// and of the Gold-Bug passage when it was run.
type TwoTimesFigures struct {
	PrefillTokens  int      `json:"prefill_tokens"`
	PrefillSeconds float64  `json:"prefill_seconds"`
	DecodeTokens   int      `json:"decode_tokens"`
	DecodeSeconds  float64  `json:"decode_seconds"`
	ReadingShare   float64  `json:"reading_share"`
	Gold           *phases  `json:"gold_bug,omitempty"`
	GoldShare      *float64 `json:"gold_bug_reading_share,omitempty"`
}

type phases struct {
	PrefillTokens  int     `json:"prefill_tokens"`
	PrefillSeconds float64 `json:"prefill_seconds"`
	DecodeTokens   int     `json:"decode_tokens"`
	DecodeSeconds  float64 `json:"decode_seconds"`
}

// readingShare is prefill's share of the wait.
func readingShare(prefill, decode float64) float64 {
	if prefill+decode <= 0 {
		return 0
	}
	return prefill / (prefill + decode)
}

func twoTimesChapter(f *facts) Chapter {
	t := f.in.Run.Timing
	fig := TwoTimesFigures{PrefillTokens: t.PrefillTokens, PrefillSeconds: t.PrefillSeconds, DecodeTokens: t.DecodeTokens,
		DecodeSeconds: t.DecodeSeconds, ReadingShare: readingShare(t.PrefillSeconds, t.DecodeSeconds)}
	var b strings.Builder
	b.WriteString(f.t("twotimes.prompt", f.phaseArgs(t.PrefillTokens, t.PrefillSeconds, t.DecodeTokens, t.DecodeSeconds)))
	if g := goldTiming(f); g != nil {
		fig.Gold = &phases{g.PrefillTokens, g.PrefillSeconds, g.DecodeTokens, g.DecodeSeconds}
		s := readingShare(g.PrefillSeconds, g.DecodeSeconds)
		fig.GoldShare = &s
		b.WriteString(f.t("twotimes.gold", f.phaseArgs(g.PrefillTokens, g.PrefillSeconds, g.DecodeTokens, g.DecodeSeconds)))
	}
	whole := i18n.Args{"What": f.weightsRead("read.whole")}
	switch share := deref(fig.GoldShare); {
	case fig.GoldShare == nil:
		b.WriteString(f.t("twotimes.once", whole))
	case share < 0.5:
		b.WriteString(f.t("twotimes.long", whole))
	default:
		b.WriteString(f.t("twotimes.longread", nil))
	}
	return Chapter{ID: TwoTimes, Title: f.t("twotimes.title", nil), Text: b.String(), Figures: fig,
		Question: f.t("twotimes.question", nil),
		Show:     Show{Tab: "Timing", Query: -1, Source: -1, Layer: -1, Head: -1}}
}

// phaseArgs are the fields of a sentence about one read and one write:
// Read, ReadTime, Written, WriteTime and the reading's Share of the wait.
func (f *facts) phaseArgs(readTokens int, readSeconds float64, writtenTokens int, writeSeconds float64) i18n.Args {
	return i18n.Args{"Read": f.tokens(readTokens), "ReadTime": f.num.Duration(readSeconds),
		"Written": f.tokens(writtenTokens), "WriteTime": f.num.Duration(writeSeconds),
		"Share": f.num.Percent(readingShare(readSeconds, writeSeconds))}
}

func goldTiming(f *facts) *trace.Timing {
	if f.in.Extra == nil {
		return nil
	}
	return f.in.Extra.Gold
}

// ComputeFigures: prefill and decode at each kernel level, and the decode's
// read rate against the measured bandwidth.
type ComputeFigures struct {
	Runs          []KernelRun `json:"runs"`
	BytesPerToken float64     `json:"bytes_per_token"`
	DecodeGBs     []float64   `json:"decode_gb_per_s"`
	BandwidthGBs  float64     `json:"bandwidth_gb_per_s"`
}

func computeChapter(f *facts) Chapter {
	c := Chapter{ID: ComputeMemory, Title: f.t("compute.title", nil),
		Question: f.t("compute.question", nil),
		Show:     Show{Tab: "Timing", Query: -1, Source: -1, Layer: -1, Head: -1}}
	bytes := float64(f.info.WeightBytesPerTok + f.info.StateBytes)
	if f.in.Extra == nil || len(f.in.Extra.Kernels) == 0 {
		c.Skipped = NeedsTiming
		c.Figures = ComputeFigures{Runs: []KernelRun{}, BytesPerToken: bytes, DecodeGBs: []float64{}}
		c.Text = f.t("compute.skipped", i18n.Args{"What": f.weightsRead("read.every"), "Bytes": f.num.Bytes(bytes), "Levels": f.levelsMeasured()})
		return c
	}
	e := f.in.Extra
	fig := ComputeFigures{Runs: e.Kernels, BytesPerToken: bytes, BandwidthGBs: e.BandwidthGBs}
	var b strings.Builder
	b.WriteString(f.t("compute.reads", i18n.Args{"What": f.weightsRead("read.every"), "Bytes": f.num.Bytes(bytes)}))
	for i, r := range e.Kernels {
		fig.DecodeGBs = append(fig.DecodeGBs, stats.OrZero(stats.DecodeGBs(trace.Timing{DecodeTokens: r.DecodeTokens, DecodeSeconds: r.DecodeSeconds, BytesPerToken: bytes})))
		if i == 0 {
			a := f.phaseArgs(r.PrefillTokens, r.PrefillSeconds, r.DecodeTokens, r.DecodeSeconds)
			a["Level"], a["Rate"] = r.Level, f.num.GBs(fig.DecodeGBs[0])
			b.WriteString(f.t("compute.level", a))
			continue
		}
		base := e.Kernels[0]
		b.WriteString(f.t("compute.otherlevel", i18n.Args{"Level": r.Level,
			"ReadRatio":  f.num.Times(stats.OrZero(stats.Ratio(r.PrefillSeconds, base.PrefillSeconds))),
			"WriteRatio": f.num.Times(stats.OrZero(stats.Ratio(r.DecodeSeconds, base.DecodeSeconds)))}))
	}
	if e.BandwidthGBs > 0 {
		share := fig.DecodeGBs[0] / e.BandwidthGBs
		a := i18n.Args{"Bandwidth": f.num.GBs(e.BandwidthGBs), "Share": f.num.Percent(share)}
		switch {
		case share > stats.CacheBound:
			b.WriteString(f.t("compute.cache", a))
		case share >= stats.MemoryBound:
			b.WriteString(f.t("compute.memory", a))
		default:
			b.WriteString(f.t("compute.notmemory", a))
		}
	}
	c.Figures, c.Text = fig, b.String()
	return c
}

// ThinkingFigures: the prompt as a chat turn with thinking on and off.
type ThinkingFigures struct {
	Template bool     `json:"thinking_template"`
	On       *phases  `json:"on,omitempty"`
	Off      *phases  `json:"off,omitempty"`
	Ratio    *float64 `json:"wait_ratio,omitempty"`
}

func thinkingChapter(f *facts) Chapter {
	c := Chapter{ID: Thinking, Title: f.t("thinking.title", nil), Show: Show{Tab: "Timing", Query: -1, Source: -1, Layer: -1, Head: -1}}
	fig := ThinkingFigures{Template: f.in.ThinkingTemplate}
	c.Figures = fig
	if !fig.Template {
		c.Text = f.t("thinking.none", nil)
		return c
	}
	var on, off *trace.Timing
	if f.in.Extra != nil {
		on, off = f.in.Extra.ThinkOn, f.in.Extra.ThinkOff
	}
	if on == nil || off == nil {
		c.Skipped = NeedsTiming
		c.Text = f.t("thinking.skipped", nil)
		return c
	}
	fig.On = &phases{on.PrefillTokens, on.PrefillSeconds, on.DecodeTokens, on.DecodeSeconds}
	fig.Off = &phases{off.PrefillTokens, off.PrefillSeconds, off.DecodeTokens, off.DecodeSeconds}
	waitOn, waitOff := on.PrefillSeconds+on.DecodeSeconds, off.PrefillSeconds+off.DecodeSeconds
	if waitOff > 0 {
		r := waitOn / waitOff
		fig.Ratio = &r
	}
	c.Figures = fig
	c.Text = f.t("thinking.result", i18n.Args{"Off": f.tokens(off.DecodeTokens), "OffTime": f.num.Duration(waitOff),
		"On": f.tokens(on.DecodeTokens), "Draft": f.num.Thousands(int64(on.ThinkingTokens)), "OnTime": f.num.Duration(waitOn),
		"Ratio": f.num.Times(stats.OrZero(deref(fig.Ratio)))})
	return c
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// levelsMeasured names the kernel levels Measure will time on this CPU
// (levels): "the avx512bf16 kernels and with the avx2 ones", or only
// "the avx2 kernels" on a CPU without AVX-512 (or with the level forced).
func (f *facts) levelsMeasured() string {
	ls := levels(kernels.Current())
	a := i18n.Args{"Level": ls[0].Level().String()}
	if len(ls) == 1 {
		return f.t("compute.levels.one", a)
	}
	a["Other"] = ls[1].Level().String()
	return f.t("compute.levels.two", a)
}

// weightsRead names what one decode step reads: of a dense model the
// sentence of key dense ("the whole model"), of an MoE model the shared
// weights and the k experts the router chose.
func (f *facts) weightsRead(dense string) string {
	if m := f.info; m.Experts > 0 {
		return f.t("read.moe", i18n.Args{"K": m.ExpertsPerToken, "E": m.Experts})
	}
	return f.t(dense, nil)
}
