package sample

import (
	"math"

	"loupe/kernels"
)

// Candidate is one token of the distribution a token was drawn from.
type Candidate struct {
	ID int
	P  float64
}

// Sampler draws tokens with fixed settings and its own seeded generator.
// Not safe for concurrent use; one per generation.
type Sampler struct {
	p         Params
	rng       splitMix64
	promptLen int

	counts []int32  // [V] occurrences of each id in the generated ids; zero between calls
	marks  []uint32 // [V] stamp of the call that last penalised the id for repetition
	stamp  uint32
	heap   []int32   // scratch for topSorted
	all    []int32   // [V] scratch for full sorts
	probs  []float32 // [V] scratch for topProbs
	// softmaxed: probs holds softmax of this call's logits as they are
	// now (massAll left it for the penalties stage; greedy's top-n reuses it).
	softmaxed bool
	chosenP   float64 // P of the latest call's token in the distribution it was drawn from (ChosenP)

	stagesN int     // candidates whose stages are recorded (0: off; stages.go)
	stages  *Stages // the latest record
}

// New checks p and seeds the generator (docs/spec/sampling.md §5: SplitMix64 from the
// seed itself, so seeds 1 … 5 give five different streams).
func New(p Params, seed uint64) (*Sampler, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &Sampler{p: p, rng: splitMix64{s: seed}}, nil
}

// Params reports the settings.
func (s *Sampler) Params() Params { return s.p }

// SetPromptLen says how many leading ids of Sample's history are the prompt:
// they count for the repetition penalty but not for the frequency and
// presence penalties, which count generated tokens only (docs/spec/sampling.md §3).
// Without it the whole history counts as generated.
func (s *Sampler) SetPromptLen(n int) { s.promptLen = n }

// Sample picks the next token from logits (length V, modified in place)
// given history = prompt ids then generated ids (see SetPromptLen), and
// returns the n most probable candidates of the distribution the token was
// drawn from, by P descending, ties by lower id. Greedy: softmax at T = 1 of
// the penalised logits over the whole vocabulary. Sampling: the final
// distribution after penalties, temperature and truncation, renormalised
// (fewer than n candidates when fewer tokens survive the filters).
// NaN logits count as −∞. With no logits it returns −1; when every logit is
// −∞ it returns 0 and no candidates.
func (s *Sampler) Sample(logits []float32, history []int, n int) (id int, top []Candidate) {
	pl := min(max(s.promptLen, 0), len(history))
	return s.SampleWith(logits, history, history[pl:], n)
}

// SampleWith is Sample with the two histories given apart: context (prompt
// and generated ids) for the repetition penalty, generated for frequency and
// presence. Ids outside [0, V) are ignored.
func (s *Sampler) SampleWith(logits []float32, context, generated []int, n int) (id int, top []Candidate) {
	if len(logits) == 0 {
		return -1, nil
	}
	for i, v := range logits {
		if v != v {
			logits[i] = float32(math.Inf(-1))
		}
	}
	s.softmaxed = false
	s.repetition(logits, context)
	s.frequencyPresence(logits, generated)
	s.beginStages(logits, s.p.RepetitionPenalty != 1 || s.p.FrequencyPenalty != 0 || s.p.PresencePenalty != 0)
	s.chosenP = 0
	if s.p.IsGreedy() {
		id, top = s.greedy(logits, n)
		if len(top) > 0 { // top[0] is the argmax: ties go to the lower id in both
			s.chosenP = top[0].P
		}
		s.endStages(id, 0)
		return id, top
	}
	return s.draw(logits, n)
}

// ChosenP is the probability of the latest call's token in the distribution
// it was drawn from (after penalties, temperature and truncation), also when
// the token is not among the n candidates returned. Greedy: the softmax
// probability of the argmax when n ≥ 1, else 0 (not worked out).
func (s *Sampler) ChosenP() float64 { return s.chosenP }

// repetition applies the CTRL penalty once per distinct id of context:
// z ← z/r if z > 0, else z·r.
func (s *Sampler) repetition(z []float32, context []int) {
	r := float32(s.p.RepetitionPenalty)
	if r == 1 || len(context) == 0 {
		return
	}
	if len(s.marks) != len(z) {
		s.marks, s.stamp = make([]uint32, len(z)), 0
	}
	if s.stamp++; s.stamp == 0 {
		clear(s.marks)
		s.stamp = 1
	}
	for _, id := range context {
		if id < 0 || id >= len(z) || s.marks[id] == s.stamp {
			continue
		}
		s.marks[id] = s.stamp
		if z[id] > 0 {
			z[id] /= r
		} else {
			z[id] *= r
		}
	}
}

// frequencyPresence applies the OpenAI penalties with c = count of the id in
// generated: z ← z − c·f − [c > 0]·q (two fp32 subtractions, as vLLM).
func (s *Sampler) frequencyPresence(z []float32, generated []int) {
	f, q := float32(s.p.FrequencyPenalty), float32(s.p.PresencePenalty)
	if f == 0 && q == 0 || len(generated) == 0 {
		return
	}
	if len(s.counts) != len(z) {
		s.counts = make([]int32, len(z))
	}
	for _, id := range generated {
		if id >= 0 && id < len(z) {
			s.counts[id]++
		}
	}
	for _, id := range generated {
		if id < 0 || id >= len(z) || s.counts[id] == 0 {
			continue
		}
		z[id] -= f * float32(s.counts[id])
		z[id] -= q
		s.counts[id] = 0
	}
}

// greedy is argmax (first maximum), one pass over V, plus the top-n of
// softmax(z) when asked.
func (s *Sampler) greedy(z []float32, n int) (int, []Candidate) {
	best := s.stagedArgmax(z)
	if n <= 0 || math.IsInf(float64(z[best]), -1) {
		return best, nil
	}
	zmax := float64(z[best])
	if math.IsInf(zmax, 1) { // softmax would give ∞ − ∞
		total := 0.0
		for _, v := range z {
			total += expShift(v, zmax)
		}
		return best, candidates(z, s.topSorted(z, n), zmax, total)
	}
	return best, s.topProbs(z, n)
}

// topProbs returns the n most probable candidates of softmax(z) (z
// finite at its maximum), their P from Softmax.
func (s *Sampler) topProbs(z []float32, n int) []Candidate {
	if cap(s.probs) < len(z) {
		s.probs = make([]float32, len(z))
	}
	e := s.probs[:len(z)]
	var total float64
	if !s.softmaxed {
		copy(e, z) // no NaN left: SampleWith made them −∞
		kernels.Softmax(e)
	}
	total = sum64(e)
	ids := s.stagedTop(z, n)
	out := make([]Candidate, len(ids))
	for i, id := range ids {
		out[i] = Candidate{ID: int(id), P: float64(e[id]) / total}
	}
	return out
}

// Softmax writes e = softmax(z) with the vector kernel (fp32, within a
// few ulp; a NaN logit counts as −∞) and returns Σ e in float64, so that
// e[i] / Σ e, the fp32 sum's rounding cancelled, is within about 3e-7
// (1e-5 relative) of the float64 softmax: the one softmax of a vocabulary (the sampler's
// candidates, the chosen token's p, the logit lens). Against 1.2 ms per
// token for V float64 exps of a 152k vocabulary on one core (about 1.5 %
// of decode on one thread), the kernel takes a fifth of that. e and z may
// be the same slice; len(e) ≥ len(z).
func Softmax(e, z []float32) float64 {
	e = e[:len(z)]
	for i, v := range z {
		if v != v {
			v = float32(math.Inf(-1))
		}
		e[i] = v
	}
	kernels.Softmax(e) // e[i] = exp(z[i] − max z) / S
	return sum64(e)
}

// sum64 is Σ e in float64 as four running sums: one is a chain of
// dependent adds, 4 cycles each, 0.2 ms over a 152k vocabulary, a third
// of a greedy step. Every e_i is exact in float64; the order of the adds
// moves the sum by a few of its ulps.
func sum64(e []float32) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(e); i += 4 {
		s0 += float64(e[i])
		s1 += float64(e[i+1])
		s2 += float64(e[i+2])
		s3 += float64(e[i+3])
	}
	for ; i < len(e); i++ {
		s0 += float64(e[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// stagedTop is topSorted(z, n) read from this call's stages record when
// it holds n candidates or more: beginStages ranked the same logits (greedy
// leaves z as the penalties left it) in the same order, logit descending
// and ties by lower id, so its first n are the top n. It saves a pass over
// the vocabulary on each greedy step the window records (a quarter of a
// millisecond at 152k).
func (s *Sampler) stagedTop(z []float32, n int) []int32 {
	n = min(n, len(z))
	st := s.stages
	if st == nil || len(st.IDs) < n {
		return s.topSorted(z, n)
	}
	ids := s.heap[:0]
	for _, id := range st.IDs[:n] {
		ids = append(ids, int32(id))
	}
	s.heap = ids
	return ids
}

// stagedArgmax is argmax(z), the stages record's best candidate when there
// is one: the first index of the largest logit is the best by (logit
// descending, lower id), NaN having become −∞.
func (s *Sampler) stagedArgmax(z []float32) int {
	if st := s.stages; st != nil && len(st.IDs) > 0 {
		return st.IDs[0]
	}
	return argmax(z)
}

// draw is temperature → top_k → top_p → min_p → one uniform draw. Every
// filter keeps a best-first prefix of the vocabulary ordered by (logit desc,
// id asc), so the survivors are always order[:k] and only as much of the
// vocabulary is sorted as the filters and the draw look at.
func (s *Sampler) draw(z []float32, n int) (int, []Candidate) {
	s.softmaxed = false // the filters below change z
	if t := float32(s.p.Temperature); t != 1 {
		for i := range z {
			z[i] /= t
		}
	}
	best := argmax(z)
	zmax := float64(z[best])
	k := countAtLeast(z, float32(math.Inf(-1)), true) // finite survivors
	if k == 0 {
		s.rng.uniform() // one draw per sampled token, whatever happens
		return best, nil
	}
	s.noteStage("temperature", s.p.Temperature != 1, z, zmax, k, nil)
	var order []int32 // nil: the survivors are every finite logit
	if tk := s.p.TopK; tk > 0 && tk < k {
		tau := z[s.topSorted(z, tk)[tk-1]]
		k = countAtLeast(z, tau, false) // ties at τ all survive
		order = s.topSorted(z, k)
	}
	s.noteStage("top-k", s.p.TopK > 0, z, zmax, k, order)
	if p := s.p.TopP; p < 1 {
		// keep the smallest best-first prefix whose mass reaches p
		var j int
		j, order = s.cut(z, zmax, k, order, p*s.mass(z, zmax, k, order), false)
		k, order = j, order[:j]
	}
	s.noteStage("top-p", s.p.TopP < 1, z, zmax, k, order)
	if m := s.p.MinP; m > 0 {
		// P_i ≥ m·P_max ⇔ exp(z_i − z_max) ≥ m: a best-first prefix again
		c := 0
		for _, v := range z {
			if expShift(v, zmax) >= m {
				c++
			}
		}
		if c < k {
			k = c
			if order == nil {
				order = s.topSorted(z, k)
			}
			order = order[:k]
		}
	}
	s.noteStage("min-p", s.p.MinP > 0, z, zmax, k, order)
	total := s.mass(z, zmax, k, order)
	u := s.rng.uniform()
	j, order := s.cut(z, zmax, k, order, u*total, true)
	id := int(order[j-1])
	s.chosenP = expShift(z[id], zmax) / total
	s.endStages(id, u)
	if nTop := min(n, k); nTop > 0 {
		if len(order) < nTop {
			order = s.topSorted(z, nTop)
		}
		return id, candidates(z, order[:nTop], zmax, total)
	}
	return id, nil
}

// mass is Σ exp(z_i − z_max) over the survivors: order[:k], or every logit
// when order is nil (−∞ adds 0).
func (s *Sampler) mass(z []float32, zmax float64, k int, order []int32) float64 {
	total := 0.0
	if order == nil {
		for _, v := range z {
			total += expShift(v, zmax)
		}
		return total
	}
	for _, id := range order[:k] {
		total += expShift(z[id], zmax)
	}
	return total
}

// cut returns the smallest j ≤ k whose best-first running mass reaches
// target (≥, or > when strict), k when rounding never gets there, and a
// sorted prefix at least j long. When order is nil it sorts growing
// prefixes (64, 256, …) instead of the whole vocabulary.
func (s *Sampler) cut(z []float32, zmax float64, k int, order []int32, target float64, strict bool) (int, []int32) {
	m := min(k, 64)
	if order != nil {
		m = k
	}
	for {
		if order == nil || len(order) < m {
			order = s.topSorted(z, m)
		}
		run := 0.0
		for j, id := range order[:m] {
			run += expShift(z[id], zmax)
			if run > target || !strict && run >= target {
				return j + 1, order
			}
		}
		if m == k {
			return k, order
		}
		m = min(k, 4*m)
	}
}

func candidates(z []float32, ids []int32, zmax, total float64) []Candidate {
	out := make([]Candidate, len(ids))
	for i, id := range ids {
		out[i] = Candidate{ID: int(id), P: expShift(z[id], zmax) / total}
	}
	return out
}

// expShift is exp(v − zmax) in float64, 1 at the maximum (so +∞ logits do
// not give ∞ − ∞).
func expShift(v float32, zmax float64) float64 {
	if float64(v) == zmax {
		return 1
	}
	return math.Exp(float64(v) - zmax)
}

// argmax returns the first index of the largest value (torch.argmax).
// The best value is kept in a register: reloading z[best] every step made
// this loop a quarter of a greedy step with the sampler stages recorded.
func argmax(z []float32) int {
	if len(z) == 0 {
		return 0
	}
	best, bv := 0, z[0]
	i := 0
	for ; i+4 <= len(z); i += 4 {
		// Four at a time: a group none of whose values beats bv is
		// skipped (a NaN is not ≤ bv: its group is looked at value by
		// value, as before).
		if z[i] <= bv && z[i+1] <= bv && z[i+2] <= bv && z[i+3] <= bv {
			continue
		}
		for k := i; k < i+4; k++ {
			if z[k] > bv {
				best, bv = k, z[k]
			}
		}
	}
	for ; i < len(z); i++ {
		if z[i] > bv {
			best, bv = i, z[i]
		}
	}
	return best
}

// countAtLeast counts z_i ≥ tau (z_i > tau when strict).
func countAtLeast(z []float32, tau float32, strict bool) int {
	c := 0
	for _, v := range z {
		if v > tau || !strict && v == tau {
			c++
		}
	}
	return c
}
