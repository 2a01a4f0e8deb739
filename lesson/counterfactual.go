package lesson

import (
	"cmp"
	"slices"

	"loupe/i18n"
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
	c := Chapter{ID: Counterfactual, Title: f.t("counterfactual.title", nil),
		Show: Show{Tab: "Attention", Query: f.query, Source: f.source, Layer: f.layer, Head: f.head}}
	heads := f.fetchingHeads()
	top := firstChoice(f.gen[0])
	if f.in.Extra == nil || f.in.Extra.Ablated == nil {
		c.Skipped = NeedsTiming
		c.Figures = CounterfactualFigures{Heads: heads, Token: top}
		c.Text = f.t("counterfactual.skipped", i18n.Args{"Heads": f.units("head", len(heads)), "Source": f.tok(f.tokenText(f.source)),
			"List": trace.FormatHeads(heads, f.count.Base()), "Token": f.tok(top.Text)})
		return c
	}
	a := f.in.Extra.Ablated
	fig := CounterfactualFigures{Heads: a.Heads, Token: top, NewTop1: firstChoice(a.First)}
	fig.PAfter, fig.Bound = stats.ProbabilityOf(a.First, top.ID)
	after := f.num.Percent(fig.PAfter)
	if fig.Bound {
		after = f.t("counterfactual.under", i18n.Args{"P": after})
	}
	fig.DeltaP = fig.PAfter - top.P
	c.Figures = fig
	verdict := f.t("counterfactual.elsewhere", nil)
	if fig.NewTop1.ID != top.ID {
		verdict = f.t("counterfactual.newtop", i18n.Args{"Token": f.tok(fig.NewTop1.Text), "P": f.num.Percent(fig.NewTop1.P)})
	}
	key := "counterfactual.result"
	if fig.Bound {
		key = "counterfactual.resultbound"
	}
	c.Text = f.t(key, i18n.Args{"Heads": f.units("head", len(a.Heads)), "Source": f.tok(f.tokenText(f.source)),
		"List": trace.FormatHeads(a.Heads, f.count.Base()), "Token": f.tok(top.Text), "Before": f.num.Percent(top.P),
		"After": after, "Delta": f.num.Signed(100*fig.DeltaP, 1), "Verdict": verdict})
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
	read := f.t("summary.dense", i18n.Args{"Params": f.num.Count(fig.Params)})
	if m := f.info; m.Experts > 0 {
		read = f.t("summary.moe", i18n.Args{"Read": f.num.Count(fig.ParamsRead), "Total": f.num.Count(fig.Params),
			"K": m.ExpertsPerToken, "E": m.Experts})
	}
	text := f.t("summary.text", i18n.Args{"Layers": fig.Layers, "What": read, "Bytes": f.num.Bytes(fig.BytesPerToken),
		"Share": f.num.Percent(fig.ReadingShare)})
	return Chapter{ID: Summary, Title: f.t("summary.title", nil), Text: text, Figures: fig,
		Show: Show{Tab: "Timing", Query: -1, Source: -1, Layer: -1, Head: -1}}
}
