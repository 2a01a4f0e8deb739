package stats

import "loupe/trace"

// Sampled reports whether a step's token was drawn by a sampler (its
// candidates' P are the sampler's renormalised distribution), as opposed to
// greedy decoding or a step without a record of the sampler's stages.
func Sampled(s trace.Step) bool {
	return s.Stages != nil && !s.Stages.Greedy && len(s.Stages.Stages) > 0
}

// ModelP is the model's own probability of token id at a sampled step:
// the softmax of its logits over the whole vocabulary, before temperature
// and the truncations (the sampler stages' first row, after the
// penalties; penalised reports whether penalties changed the logits).
// ok is false when the step did not record the candidate.
func ModelP(s trace.Step, id int) (p float64, penalised, ok bool) {
	st := s.Stages
	if st == nil || len(st.Stages) == 0 {
		return 0, false, false
	}
	first := st.Stages[0]
	for r, c := range st.Candidates {
		if c.ID == id && r < len(first.P) {
			return first.P[r], first.On, true
		}
	}
	return 0, false, false
}
