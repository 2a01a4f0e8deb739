package lesson

import (
	"context"
	"strings"

	"loupe/engine"
	"loupe/engine/experiment"
	"loupe/i18n"
	"loupe/trace/stats"
)

// BatchPoint is B conversations written together (the "several
// conversations at once" experiment's point, experiment.Batch).
type BatchPoint struct {
	Conversations      int     `json:"conversations"`
	DecodeTokS         float64 `json:"decode_tok_s"`       // all conversations
	PerSequenceTokS    float64 `json:"per_sequence_tok_s"` // each conversation
	BytesPerToken      float64 `json:"bytes_per_token"`    // read per written token
	MemoryCeilingTokS  float64 `json:"memory_ceiling_tok_s"`
	ComputeCeilingTokS float64 `json:"compute_ceiling_tok_s"`
}

// BatchFigures: one conversation, then several written together.
type BatchFigures struct {
	Points []BatchPoint `json:"points"`
}

// lessonBatches are the batch sizes the chapter measures.
var lessonBatches = []string{"1", "8"}

// measureBatch writes a few tokens of one, then eight conversations at
// once, when m can (an *engine.Model): each its own passage of The
// Gold-Bug, against bandwidth gbs.
func measureBatch(ctx context.Context, m Runner, opt MeasureOptions, gbs float64, say func()) ([]BatchPoint, error) {
	em, ok := m.(*engine.Model)
	if !ok {
		return nil, nil
	}
	say()
	r, err := experiment.Run(ctx, em, experiment.Options{What: experiment.Batch, Values: lessonBatches, Prompt: goldBug,
		DecodeTokens: min(max(opt.Settings.MaxTokens, 4), 16),
		Kernels:      opt.Kernels,
		Bandwidth:    func(int) (float64, error) { return gbs, nil }})
	if err != nil || r.Cancelled {
		return nil, err
	}
	var out []BatchPoint
	for _, p := range r.Points {
		b, _ := p.Value.(int)
		out = append(out, BatchPoint{Conversations: b, DecodeTokS: p.DecodeTokS, PerSequenceTokS: p.PerSequenceTokS,
			BytesPerToken: p.BytesPerToken, MemoryCeilingTokS: p.MemoryCeilingTokS, ComputeCeilingTokS: p.ComputeCeilingTokS})
	}
	return out, nil
}

// batchChapter follows "Reading is computation, writing is memory": the
// article measured one conversation at a time; a server writes many, each
// weight read serving one token of each.
func batchChapter(f *facts) Chapter {
	c := Chapter{ID: Conversations, Title: f.t("batch.title", nil), Question: f.t("batch.question", nil),
		Show: Show{Tab: "Timing", Query: -1, Source: -1, Layer: -1, Head: -1}}
	var pts []BatchPoint
	if f.in.Extra != nil {
		pts = f.in.Extra.Batch
	}
	c.Figures = BatchFigures{Points: append([]BatchPoint{}, pts...)}
	if len(pts) < 2 || pts[0].DecodeTokS <= 0 || pts[len(pts)-1].PerSequenceTokS <= 0 {
		c.Skipped = NeedsTiming
		c.Text = f.t("batch.skipped", nil)
		return c
	}
	c.Text = batchText(f, pts[0], pts[len(pts)-1])
	return c
}

// batchText says what one conversation read a token (a) and what b
// conversations written together gained and lost, and which ceiling now
// bounds writing.
func batchText(f *facts, a, b BatchPoint) string {
	num := f.num
	n := num.Thousands(int64(b.Conversations))
	parts := []string{
		f.t("batch.one", i18n.Args{"Bytes": num.Bytes(a.BytesPerToken)}),
		f.t("batch.many", i18n.Args{"B": n, "Bytes": num.Bytes(b.BytesPerToken)}),
		f.t("batch.speeds", i18n.Args{"Total": num.Sig2(b.DecodeTokS), "SoloTotal": num.Sig2(a.DecodeTokS),
			"Gain": num.Times(stats.OrZero(stats.Ratio(b.DecodeTokS, a.DecodeTokS))),
			"Each": num.Sig2(b.PerSequenceTokS), "SoloEach": num.Sig2(a.PerSequenceTokS),
			"Wait": num.Times(stats.OrZero(stats.Ratio(a.PerSequenceTokS, b.PerSequenceTokS)))}),
	}
	ceil := i18n.Args{"Mem": num.Sig2(b.MemoryCeilingTokS), "Comp": num.Sig2(b.ComputeCeilingTokS), "B": n}
	switch {
	case b.MemoryCeilingTokS <= 0 || b.ComputeCeilingTokS <= 0:
	case b.ComputeCeilingTokS < b.MemoryCeilingTokS:
		parts = append(parts, f.t("batch.compute", ceil))
	default:
		parts = append(parts, f.t("batch.memory", ceil))
	}
	return strings.Join(parts, " ")
}
