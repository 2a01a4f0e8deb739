package lesson

import (
	"fmt"
	"strings"

	"loupe/format"
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
	fmt.Fprintf(&b, "After the last layer, the list of %s is compared with every token of the vocabulary: %s scores, shown as percentages. ",
		tok(f.tokenText(f.query)), format.Thousands(int64(f.info.Vocab)))
	fmt.Fprintf(&b, "The top: %s. ", listCandidates(fig.Top10, 3))
	if fig.Tied {
		b.WriteString("This model uses its embedding table a second time to give these scores")
	} else {
		b.WriteString("This model has a separate output table, the same shape as the embedding table")
	}
	fmt.Fprintf(&b, ": %s parameters out of %s, %s of what it reads to write one token.", format.Count(head), format.Count(total), format.Percent(share))
	return Chapter{ID: Output, Title: "Choosing the next token", Text: b.String(), Figures: fig,
		Question: fmt.Sprintf("Which word comes after %s?", tok(f.tokenText(f.query))),
		Show:     Show{Tab: "Next token", Query: f.query, Source: -1, Layer: -1, Head: -1}}
}

func listCandidates(cs []trace.Candidate, n int) string {
	var parts []string
	for _, c := range cs[:min(n, len(cs))] {
		parts = append(parts, tok(c.Text)+" "+format.Percent(c.P))
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
	choose := "takes the most probable token (greedy)"
	if !fig.Greedy {
		choose = "draws a token at random, favouring the most probable"
	}
	fmt.Fprintf(&b, "The model %s, adds it to the text and starts again: %s. ", choose, listCandidates(fig.Tokens, 4))
	fmt.Fprintf(&b, "An answer is only this loop: here %s, one forward pass each.", format.Plural(fig.Generated, "token"))
	pos := f.query + 1
	return Chapter{ID: Loop, Title: "The loop, token by token", Text: b.String(), Figures: fig,
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
	fmt.Fprintf(&b, "An answer takes two times: reading the %s of the prompt together (the prefill) took %s; "+
		"writing %s one after another (the decode) took %s. Reading is %s of the wait. ",
		format.Plural(t.PrefillTokens, "token"), format.Duration(t.PrefillSeconds), format.Plural(t.DecodeTokens, "token"),
		format.Duration(t.DecodeSeconds), format.Percent(fig.ReadingShare))
	if g := goldTiming(f); g != nil {
		fig.Gold = &phases{g.PrefillTokens, g.PrefillSeconds, g.DecodeTokens, g.DecodeSeconds}
		s := readingShare(g.PrefillSeconds, g.DecodeSeconds)
		fig.GoldShare = &s
		fmt.Fprintf(&b, "A passage of The Gold-Bug: %s read in %s, %s written in %s: reading is %s. ",
			format.Plural(g.PrefillTokens, "token"), format.Duration(g.PrefillSeconds), format.Plural(g.DecodeTokens, "token"),
			format.Duration(g.DecodeSeconds), format.Percent(s))
	}
	switch share := deref(fig.GoldShare); {
	case fig.GoldShare == nil:
		b.WriteString("Every token written reads " + f.weightsRead("the whole model") + " again; reading read the weights once for all the prompt's tokens together.")
	case share < 0.5:
		b.WriteString("Even with a long text, writing makes most of the wait: every token written reads " + f.weightsRead("the whole model") + " again.")
	default:
		b.WriteString("On this model a long text's reading weighs more than its writing: the whole text goes through the layers.")
	}
	return Chapter{ID: TwoTimes, Title: "The two times of an answer", Text: b.String(), Figures: fig,
		Question: "Which takes longer here: reading the prompt, or writing the answer?",
		Show:     Show{Tab: "Timing", Query: -1, Source: -1, Layer: -1, Head: -1}}
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
	c := Chapter{ID: ComputeMemory, Title: "Reading is computation, writing is memory",
		Question: "How many GB are read for one token?",
		Show:     Show{Tab: "Timing", Query: -1, Source: -1, Layer: -1, Head: -1}}
	bytes := float64(f.info.WeightBytesPerTok + f.info.StateBytes)
	if f.in.Extra == nil || len(f.in.Extra.Kernels) == 0 {
		c.Skipped = NeedsTiming
		c.Figures = ComputeFigures{Runs: []KernelRun{}, BytesPerToken: bytes, DecodeGBs: []float64{}}
		c.Text = fmt.Sprintf("Writing one token reads %s once: %s. This chapter measures prefill and decode with and without "+
			"the AVX-512 kernels against the machine's bandwidth. It needs runs of its own.", f.weightsRead("every weight"), format.Bytes(bytes))
		return c
	}
	e := f.in.Extra
	fig := ComputeFigures{Runs: e.Kernels, BytesPerToken: bytes, BandwidthGBs: e.BandwidthGBs}
	var b strings.Builder
	fmt.Fprintf(&b, "Writing one token reads %s once: %s. ", f.weightsRead("every weight"), format.Bytes(bytes))
	for i, r := range e.Kernels {
		fig.DecodeGBs = append(fig.DecodeGBs, stats.OrZero(stats.DecodeGBs(trace.Timing{DecodeTokens: r.DecodeTokens, DecodeSeconds: r.DecodeSeconds, BytesPerToken: bytes})))
		if i == 0 {
			fmt.Fprintf(&b, "With %s kernels, reading %s takes %s and writing %s takes %s, %.1f GB/s read. ", r.Level,
				format.Plural(r.PrefillTokens, "token"), format.Duration(r.PrefillSeconds), format.Plural(r.DecodeTokens, "token"),
				format.Duration(r.DecodeSeconds), fig.DecodeGBs[0])
			continue
		}
		base := e.Kernels[0]
		fmt.Fprintf(&b, "With %s kernels, reading takes %.1f × that time and writing %.1f ×. ", r.Level,
			stats.OrZero(stats.Ratio(r.PrefillSeconds, base.PrefillSeconds)), stats.OrZero(stats.Ratio(r.DecodeSeconds, base.DecodeSeconds)))
	}
	if e.BandwidthGBs > 0 {
		share := fig.DecodeGBs[0] / e.BandwidthGBs
		fmt.Fprintf(&b, "The memory alone delivers %.1f GB/s: writing uses %s of it", e.BandwidthGBs, format.Percent(share))
		if share >= 0.5 {
			b.WriteString(", it waits on memory, while reading waits on arithmetic.")
		} else {
			b.WriteString(", so on this machine it does not wait on memory alone.")
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
	c := Chapter{ID: Thinking, Title: "And when the model thinks?", Show: Show{Tab: "Timing", Query: -1, Source: -1, Layer: -1, Head: -1}}
	fig := ThinkingFigures{Template: f.in.ThinkingTemplate}
	c.Figures = fig
	if !fig.Template {
		c.Text = "Many recent models first write a draft, the think, then the answer; every token of the draft is written one by one, " +
			"at the price of writing. This model has no thinking template: it completes the text, that is all."
		return c
	}
	var on, off *trace.Timing
	if f.in.Extra != nil {
		on, off = f.in.Extra.ThinkOn, f.in.Extra.ThinkOff
	}
	if on == nil || off == nil {
		c.Skipped = NeedsTiming
		c.Text = "This model can think: with thinking on it first writes a draft, then the answer. This chapter asks it the prompt " +
			"with thinking on and off and compares tokens and time. It needs runs of its own."
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
	c.Text = fmt.Sprintf("With thinking off, the answer is %s in %s. With thinking on, the model writes %s, %s of them draft, in %s. "+
		"Every thinking token is paid at decode price: the wait is %.1f × longer.",
		format.Plural(off.DecodeTokens, "token"), format.Duration(waitOff), format.Plural(on.DecodeTokens, "token"), format.Thousands(int64(on.ThinkingTokens)),
		format.Duration(waitOn), stats.OrZero(deref(fig.Ratio)))
	return c
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// weightsRead names what one decode step reads: dense (the whole model),
// or of an MoE model the shared weights and the k experts the router chose.
func (f *facts) weightsRead(dense string) string {
	if m := f.info; m.Experts > 0 {
		return fmt.Sprintf("the shared weights and the %d of %d experts its router chose in each MoE layer", m.ExpertsPerToken, m.Experts)
	}
	return dense
}
