package stats

import (
	"math"

	"loupe/trace"
)

// Perplexity is how surprised the model was by the text it wrote:
// exp(−(1/N) Σ ln p_i) over the N written tokens (the end-of-text one
// included), p_i the model's own probability of token i (Step.ModelP:
// softmax at T = 1 before the sampler's changes). 1 means it was certain
// of every token; a sampler's or a branch's unlikely picks raise it. ok is
// false when no step recorded the model's probability (runs saved before
// it was recorded).
func Perplexity(steps []trace.Step) (ppl float64, ok bool) {
	var sum float64
	n := 0
	for _, s := range steps {
		if s.ModelP <= 0 {
			continue
		}
		sum -= math.Log(s.ModelP)
		n++
	}
	if n == 0 {
		return 0, false
	}
	return math.Exp(sum / float64(n)), true
}
