package sample

import (
	"math"

	"loupe/kernels"
)

// Stages records what each stage of one Sample call did to its n best
// candidates (by penalised logit, ties by lower id), for the Sampler
// stages panel: the probability of each candidate after every stage, in
// the sampler's real order — penalties, then (sampling) temperature,
// top-k, top-p, min-p — 0 once a stage removed it, and the seeded draw.
//
// Every filter keeps a best-first prefix of the vocabulary in that order
// (temperature > 0 does not reorder it), so a candidate survives a stage
// exactly when its rank is below the stage's Kept count.
type Stages struct {
	Greedy bool
	IDs    []int     // the n best candidates after the penalties, best first
	Logits []float64 // their logits after the penalties
	Stage  []Stage
	Drawn  int     // the token chosen
	U      float64 // the uniform draw in [0, 1) (sampling only; the draw point is U × the kept mass)
}

// Stage is the state after one stage.
type Stage struct {
	Name  string    // "penalties", "temperature", "top-k", "top-p", "min-p"
	On    bool      // the setting changes something (T ≠ 1, k > 0, p < 1, m > 0, a penalty set)
	Kept  int       // tokens of the vocabulary still possible
	P     []float64 // per candidate, renormalised over the kept tokens; 0 when removed
	Total float64   // Σ exp(z − z_max) over the kept tokens (the normaliser)
}

// RecordStages makes the following Sample calls record their stages for
// the n best candidates (0 stops); LastStages returns the latest record.
func (s *Sampler) RecordStages(n int) { s.stagesN = n }

// LastStages is the record of the latest Sample call, or nil when not
// recording. It belongs to the caller (the next call makes a new one).
func (s *Sampler) LastStages() *Stages { return s.stages }

// beginStages starts a record after the penalties: the n best candidates
// and their probabilities over the whole vocabulary.
func (s *Sampler) beginStages(z []float32, penalised bool) {
	s.stages = nil
	if s.stagesN <= 0 || len(z) == 0 {
		return
	}
	st := &Stages{Greedy: s.p.IsGreedy()}
	for _, id := range s.topSorted(z, s.stagesN) {
		st.IDs = append(st.IDs, int(id))
		st.Logits = append(st.Logits, float64(z[id]))
	}
	s.stages = st
	zmax := st.Logits[0]
	s.noteStage("penalties", penalised, z, zmax, countAtLeast(z, float32(math.Inf(-1)), true), nil)
}

// noteStage adds the state after a stage: k kept tokens, order their ids
// best first (nil: every finite logit is kept, and the mass is summed over
// the whole vocabulary).
func (s *Sampler) noteStage(name string, on bool, z []float32, zmax float64, k int, order []int32) {
	st := s.stages
	if st == nil {
		return
	}
	var total float64
	if order == nil {
		total = s.massAll(z, zmax)
	} else {
		total = s.mass(z, zmax, k, order)
	}
	stage := Stage{Name: name, On: on, Kept: k, Total: total, P: make([]float64, len(st.IDs))}
	for r, id := range st.IDs {
		if r < k && total > 0 {
			stage.P[r] = expShift(z[id], zmax) / total
		}
	}
	st.Stage = append(st.Stage, stage)
}

// endStages records the choice.
func (s *Sampler) endStages(id int, u float64) {
	if s.stages != nil {
		s.stages.Drawn, s.stages.U = id, u
	}
}

// massAll is Σ exp(z − z_max) over the whole vocabulary from the vector
// softmax (fp32, a few ulp): e = exp(z − z_max)/S is 1/S at the maximum.
// float64 exps of a 152k vocabulary cost about 1.5 ms, twice a token.
func (s *Sampler) massAll(z []float32, zmax float64) float64 {
	if math.IsInf(zmax, 0) || math.IsNaN(zmax) {
		return s.mass(z, zmax, len(z), nil)
	}
	if cap(s.probs) < len(z) {
		s.probs = make([]float32, len(z))
	}
	e := s.probs[:len(z)]
	copy(e, z)
	kernels.Softmax(e)
	s.softmaxed = true // until a filter changes z (draw clears it)
	top := e[argmax(z)]
	if !(top > 0) {
		return s.mass(z, zmax, len(z), nil)
	}
	return 1 / float64(top)
}
