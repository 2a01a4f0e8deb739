package lesson

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"loupe/format"
	"loupe/trace"
	"loupe/trace/stats"
)

// fetchingHeadsMax is how many heads the counterfactual switches off at
// most: the article switches off the ten that look most at the colour.
const fetchingHeadsMax = 10

// FetchingHeads are the heads the counterfactual switches off: the ten
// (at most) with the largest weight on the source from the last prompt
// token, those of at least 10 % — always the strongest one.
func FetchingHeads(in Input) ([]trace.Head, error) {
	f, err := newFacts(in)
	if err != nil {
		return nil, err
	}
	return f.fetchingHeads(), nil
}

func (f *facts) fetchingHeads() []trace.Head {
	type cell struct {
		h trace.Head
		w float32
	}
	var cells []cell
	for l, heads := range f.attn.Weights {
		for h, w := range heads {
			if f.source < len(w) {
				cells = append(cells, cell{trace.Head{Layer: l, Head: h}, w[f.source]})
			}
		}
	}
	slices.SortStableFunc(cells, func(a, b cell) int { return cmp.Compare(b.w, a.w) })
	var out []trace.Head
	for i, c := range cells {
		if i >= fetchingHeadsMax || (i > 0 && c.w < 0.1) {
			break
		}
		out = append(out, c.h)
	}
	return out
}

// CounterfactualFigures: the first token's probability with the fetching
// heads on and off.
type CounterfactualFigures struct {
	Heads  []trace.Head    `json:"heads"`
	Token  trace.Candidate `json:"token"`   // the top-1 with every head on
	PAfter float64         `json:"p_after"` // its probability with Heads off
	// Bound: the token fell out of the top-k; PAfter is the k-th's
	// probability, an upper bound.
	Bound   bool            `json:"p_after_is_bound"`
	DeltaP  float64         `json:"delta_p"`  // PAfter − Token.P
	NewTop1 trace.Candidate `json:"new_top1"` // the top-1 with Heads off
}

func counterfactualChapter(f *facts) Chapter {
	c := Chapter{ID: Counterfactual, Title: "Switch the heads off",
		Show: Show{Tab: "Attention", Query: f.query, Source: f.source, Layer: f.layer, Head: f.head}}
	heads := f.fetchingHeads()
	top := firstChoice(f.gen[0])
	if f.in.Extra == nil || f.in.Extra.Ablated == nil {
		c.Skipped = NeedsTiming
		c.Figures = CounterfactualFigures{Heads: heads, Token: top}
		c.Text = fmt.Sprintf("Is one head indispensable? This chapter runs the prompt again with the %s that look most at %s switched off "+
			"(layer:head %s) and compares the probability of %s. It needs runs of its own.",
			format.Plural(len(heads), "head"), tok(f.tokenText(f.source)), trace.FormatHeads(heads, f.count.Base()), tok(top.Text))
		return c
	}
	a := f.in.Extra.Ablated
	fig := CounterfactualFigures{Heads: a.Heads, Token: top, NewTop1: firstChoice(a.First)}
	fig.PAfter, fig.Bound = stats.ProbabilityOf(a.First, top.ID)
	after := format.Percent(fig.PAfter)
	if fig.Bound {
		after = "under " + after
	}
	fig.DeltaP = fig.PAfter - top.P
	c.Figures = fig
	verdict := "the information also flows elsewhere in the network"
	if fig.NewTop1.ID != top.ID {
		verdict = fmt.Sprintf("the model now writes %s (%s)", tok(fig.NewTop1.Text), format.Percent(fig.NewTop1.P))
	}
	c.Text = fmt.Sprintf("With the %s that look most at %s switched off (%s), %s goes from %s to %s (Δp %+.1f points or more): %s. "+
		"This shows what these heads do together; on its own it does not say which one carries the word.",
		format.Plural(len(a.Heads), "head"), tok(f.tokenText(f.source)), "layer:head "+trace.FormatHeads(a.Heads, f.count.Base()), tok(top.Text),
		format.Percent(top.P), after, 100*fig.DeltaP, verdict)
	if !fig.Bound {
		c.Text = strings.Replace(c.Text, " points or more)", " points)", 1)
	}
	return c
}

// SummaryFigures: the two times and what one token reads.
type SummaryFigures struct {
	ReadingShare  float64 `json:"reading_share"`
	BytesPerToken float64 `json:"bytes_per_token"`
	Layers        int     `json:"layers"`
	Params        int64   `json:"params_total"`
	ParamsRead    int64   `json:"params_read"` // per token: all but the experts an MoE model's router leaves out
}

func summaryChapter(f *facts) Chapter {
	t := f.in.Run.Timing
	_, total, _ := stats.OutputReadShare(f.info)
	fig := SummaryFigures{ReadingShare: readingShare(t.PrefillSeconds, t.DecodeSeconds),
		BytesPerToken: float64(f.info.WeightBytesPerTok + f.info.StateBytes), Layers: f.info.Layers, Params: total,
		ParamsRead: stats.ActiveParams(f.info)}
	read := fmt.Sprintf("the %s parameters", format.Count(fig.Params))
	if m := f.info; m.Experts > 0 {
		read = fmt.Sprintf("the %s parameters it uses (of %s: the shared weights and %d of the %d experts of each MoE layer)",
			format.Count(fig.ParamsRead), format.Count(fig.Params), m.ExpertsPerToken, m.Experts)
	}
	text := fmt.Sprintf("An answer is two times. Reading is computation: all the tokens go through the %d layers together, "+
		"and a processor that computes faster reads faster. Writing is memory: one token at a time, and for each one %s, "+
		"%s, read again. Here reading was %s of the wait: what matters is not tokens per second, it is the time you wait.",
		fig.Layers, read, format.Bytes(fig.BytesPerToken), format.Percent(fig.ReadingShare))
	return Chapter{ID: Summary, Title: "What to remember", Text: text, Figures: fig,
		Show: Show{Tab: "Timing", Query: -1, Source: -1, Layer: -1, Head: -1}}
}
