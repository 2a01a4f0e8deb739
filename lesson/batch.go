package lesson

import (
	"context"
	"fmt"
	"strings"

	"loupe/engine"
	"loupe/engine/experiment"
	"loupe/format"
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
func measureBatch(ctx context.Context, m Runner, opt MeasureOptions, gbs float64, say func(string)) ([]BatchPoint, error) {
	em, ok := m.(*engine.Model)
	if !ok {
		return nil, nil
	}
	say("writing one conversation, then eight at once")
	r, err := experiment.Run(ctx, em, experiment.Options{What: experiment.Batch, Values: lessonBatches, Prompt: goldBug,
		DecodeTokens: min(max(opt.Settings.MaxTokens, 4), 16),
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
	c := Chapter{ID: Conversations, Title: "Several conversations at once",
		Question: "Eight conversations written together: how much faster does the machine write in all?",
		Show:     Show{Tab: "Timing", Query: -1, Source: -1, Layer: -1, Head: -1}}
	var pts []BatchPoint
	if f.in.Extra != nil {
		pts = f.in.Extra.Batch
	}
	c.Figures = BatchFigures{Points: append([]BatchPoint{}, pts...)}
	if len(pts) < 2 || pts[0].DecodeTokS <= 0 || pts[len(pts)-1].PerSequenceTokS <= 0 {
		c.Skipped = NeedsTiming
		c.Text = "The article measured one conversation at a time. A server writes for many people at once: one read of the weights " +
			"can serve one token of each conversation. This chapter writes one conversation, then eight together. It needs runs of its own."
		return c
	}
	a, b := pts[0], pts[len(pts)-1]
	var s strings.Builder
	fmt.Fprintf(&s, "The article measured one conversation at a time: each written token read %s. ", format.Bytes(a.BytesPerToken))
	fmt.Fprintf(&s, "With %d conversations written together, each weight read serves %d tokens, one of each: %s a token. ",
		b.Conversations, b.Conversations, format.Bytes(b.BytesPerToken))
	fmt.Fprintf(&s, "The machine wrote %s tokens/s in all instead of %s (%.1f ×), but each conversation got %s instead of %s: it waits %.1f × longer per token. ",
		format.Sig2(b.DecodeTokS), format.Sig2(a.DecodeTokS), ratio(b.DecodeTokS, a.DecodeTokS),
		format.Sig2(b.PerSequenceTokS), format.Sig2(a.PerSequenceTokS), ratio(a.PerSequenceTokS, b.PerSequenceTokS))
	switch {
	case b.MemoryCeilingTokS <= 0 || b.ComputeCeilingTokS <= 0:
	case b.ComputeCeilingTokS < b.MemoryCeilingTokS:
		fmt.Fprintf(&s, "Memory would now allow %s tokens/s, computation only %s: writing is computation again, as reading is, and that is how a server answers thousands of people.",
			format.Sig2(b.MemoryCeilingTokS), format.Sig2(b.ComputeCeilingTokS))
	default:
		fmt.Fprintf(&s, "Memory allows %s tokens/s, computation %s: even at %d, writing waits for memory; more conversations would still write faster in all.",
			format.Sig2(b.MemoryCeilingTokS), format.Sig2(b.ComputeCeilingTokS), b.Conversations)
	}
	c.Text = s.String()
	return c
}
