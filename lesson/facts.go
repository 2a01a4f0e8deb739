package lesson

import (
	"fmt"
	"math"
	"strings"

	"loupe/format"
	"loupe/trace"
	"loupe/trace/stats"
)

// facts are the derived numbers every chapter shares: the prompt, the
// query (the last prompt token), the source it fetches and the head that
// fetches it most.
type facts struct {
	in     Input
	info   trace.ModelInfo
	count  numbering
	prompt []trace.Token // the prompt's tokens
	gen    []trace.Step  // the generated steps
	attn   trace.Attention
	query  int // position of the last prompt token
	source int // the source position
	// why the source was chosen: "top-1" (the model is about to write
	// it) or "strongest" (the largest mean share other than the first).
	sourceWhy  string
	layer      int     // the head that attends most to the source …
	head       int     // … from the query
	share      float32 // its weight on the source
	layerMeans []float64
}

func newFacts(in Input) (*facts, error) {
	if in.Run == nil || in.Inspect == nil {
		return nil, errNoData
	}
	f := &facts{in: in, info: in.Model, count: numbering(btoi(!in.FromZero)), attn: in.Inspect.Attention}
	for _, t := range in.Run.Tokens {
		if !t.Generated {
			f.prompt = append(f.prompt, t)
		}
	}
	f.gen = in.Run.Steps
	if len(f.prompt) == 0 || len(f.gen) == 0 || len(f.attn.Weights) == 0 {
		return nil, errNoData
	}
	f.query = f.attn.QueryPos
	f.source, f.sourceWhy = findSource(f.attn, f.prompt, firstChoice(f.gen[0]))
	f.layer, f.head, f.share = stats.StrongestHead(f.attn, f.source)
	f.layerMeans = stats.RowMeans(stats.SourceGrid(f.attn, f.source))
	return f, nil
}

// firstChoice is the most probable first token (the chosen one when the
// step kept no top-k).
func firstChoice(s trace.Step) trace.Candidate {
	if len(s.Top) > 0 {
		return s.Top[0]
	}
	return s.Chosen
}

// findSource picks the prompt token the model is about to copy: the
// position of the top-1 candidate in the prompt (by id, else by its text
// without spaces and case), the one the query attends to most when it
// occurs several times. Without such a token it is the strongest source:
// the largest mean share over every layer and head, the first token (the
// sink) and the query itself left out.
func findSource(a trace.Attention, prompt []trace.Token, top1 trace.Candidate) (int, string) {
	q := a.QueryPos
	if q < 2 {
		return 0, "strongest"
	}
	match := func(t trace.Token) bool { return t.ID == top1.ID }
	for pass := 0; pass < 2; pass++ {
		best, bestV := -1, -1.0
		for p := 1; p < q && p < len(prompt); p++ {
			if !match(prompt[p]) {
				continue
			}
			if v := stats.SourceShare(a, p); v > bestV {
				best, bestV = p, v
			}
		}
		if best > 0 {
			return best, "top-1"
		}
		want := plain(top1.Text)
		match = func(t trace.Token) bool { return want != "" && plain(t.Text) == want }
	}
	return stats.StrongestSource(a), "strongest"
}

// plain is a token's text without surrounding spaces, in lower case.
func plain(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// numbering is the number given to the first layer and head in the text.
type numbering int

func (n numbering) Base() int          { return int(n) }
func (n numbering) Layer(i int) string { return fmt.Sprintf("layer %d", i+int(n)) }
func (n numbering) Head(i int) string  { return fmt.Sprintf("head %d", i+int(n)) }

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// attentionLayers counts the layers with an attention map and lists the
// others (a hybrid's Gated DeltaNet layers).
func (f *facts) attentionLayers() (n int, without []int) {
	for l := range f.info.Layers {
		if f.info.HasAttention(l) {
			n++
		} else {
			without = append(without, l)
		}
	}
	return n, without
}

// tok is a token's text as the figures show it, between quotes.
func tok(s string) string {
	if t := strings.TrimSpace(s); t != "" {
		s = t
	}
	return "«" + format.Visible(s) + "»"
}

// tokenText is the text of prompt position p.
func (f *facts) tokenText(p int) string {
	if p >= 0 && p < len(f.prompt) {
		return f.prompt[p].Text
	}
	return ""
}

// finite is x, or nil for NaN and ±Inf (JSON holds no NaN).
func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}
