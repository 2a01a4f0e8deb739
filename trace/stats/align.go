package stats

import "loupe/trace"

// FirstDivergence is the first position where the two token sequences
// differ (by id), or the shorter length when one is a prefix of the
// other; -1 when they are the same.
func FirstDivergence(a, b []trace.Token) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i].ID != b[i].ID {
			return i
		}
	}
	if len(a) != len(b) {
		return n
	}
	return -1
}

// PromptLen is the number of prompt tokens of a run.
func PromptLen(r *trace.Run) int {
	for i, t := range r.Tokens {
		if t.Generated {
			return i
		}
	}
	return len(r.Tokens)
}

// Alignment maps the positions of run A to those of run B and back (-1:
// no counterpart). Prompts are aligned by their token ids: the common
// start and end pair up, and a changed middle pairs token by token when
// both sides have the same length (one word replaced by another of as
// many tokens). Generated tokens pair by their order after the prompt.
type Alignment struct {
	AtoB, BtoA []int
	// Same: the prompts are identical. Substituted: they differ in a run
	// of as many tokens on each side (every prompt position has its pair).
	Same, Substituted bool
	// ChangedA and ChangedB are the [first, end) positions that differ.
	ChangedA, ChangedB [2]int
}

// Align aligns two runs given their tokens and the prompt lengths.
func Align(a, b []trace.Token, promptA, promptB int) Alignment {
	al := Alignment{AtoB: fill(len(a), -1), BtoA: fill(len(b), -1)}
	pa, pb := a[:min(promptA, len(a))], b[:min(promptB, len(b))]
	pre := 0
	for pre < len(pa) && pre < len(pb) && pa[pre].ID == pb[pre].ID {
		pre++
	}
	suf := 0
	for suf < len(pa)-pre && suf < len(pb)-pre && pa[len(pa)-1-suf].ID == pb[len(pb)-1-suf].ID {
		suf++
	}
	pair := func(i, j int) { al.AtoB[i], al.BtoA[j] = j, i }
	for i := range pre {
		pair(i, i)
	}
	for k := range suf {
		pair(len(pa)-1-k, len(pb)-1-k)
	}
	al.ChangedA = [2]int{pre, len(pa) - suf}
	al.ChangedB = [2]int{pre, len(pb) - suf}
	midA, midB := len(pa)-suf-pre, len(pb)-suf-pre
	al.Same = midA == 0 && midB == 0
	if midA == midB {
		al.Substituted = !al.Same
		for k := range midA {
			pair(pre+k, pre+k)
		}
	}
	for k := 0; len(pa)+k < len(a) && len(pb)+k < len(b); k++ {
		pair(len(pa)+k, len(pb)+k)
	}
	return al
}

func fill(n, v int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// ProbOf is the probability a step gave to token id, false when id is not
// among the step's recorded candidates.
func ProbOf(s trace.Step, id int) (float64, bool) {
	if s.Chosen.ID == id {
		return s.Chosen.P, true
	}
	for _, c := range s.Top {
		if c.ID == id {
			return c.P, true
		}
	}
	return 0, false
}

// StepAt is the step that generated position pos.
func StepAt(steps []trace.Step, pos int) (trace.Step, bool) {
	for _, s := range steps {
		if s.Pos == pos {
			return s, true
		}
	}
	return trace.Step{}, false
}

// Delta is the probability of A's chosen token at one step in A and in B.
type Delta struct {
	Pos      int             // position the step generated (in A)
	Token    trace.Candidate // A's choice, with its probability in A
	PB       float64         // the same token's probability in B
	InB      bool            // B recorded it among its candidates
	ChosenB  trace.Candidate // B's own choice at the paired step
	HasA     bool
	HasB     bool
	StepA    trace.Step
	StepB    trace.Step
	PosB     int
	Diverged bool // B chose another token here
}

// DeltaAt compares the step of A that generated posA with the paired step
// of B (posB, from the alignment).
func DeltaAt(a, b *trace.Run, posA, posB int) Delta {
	d := Delta{Pos: posA, PosB: posB}
	d.StepA, d.HasA = StepAt(a.Steps, posA)
	d.StepB, d.HasB = StepAt(b.Steps, posB)
	if !d.HasA {
		return d
	}
	d.Token = d.StepA.Chosen
	if d.HasB {
		d.PB, d.InB = ProbOf(d.StepB, d.Token.ID)
		d.ChosenB = d.StepB.Chosen
		d.Diverged = d.ChosenB.ID != d.Token.ID
	}
	return d
}

// FirstWritten is the first generated position of run a whose token b
// did not write at its aligned place, and that place in b (-1: none);
// when b wrote everything a did and more, the position just past a's
// text and the token b wrote there. -1, -1: b wrote what a wrote.
func FirstWritten(a, b *trace.Run, al Alignment) (ia, ib int) {
	pa, pb := PromptLen(a), PromptLen(b)
	for i := pa; i < len(a.Tokens); i++ {
		j := al.AtoB[i]
		if j < 0 || b.Tokens[j].ID != a.Tokens[i].ID {
			return i, j
		}
	}
	if len(b.Tokens)-pb > len(a.Tokens)-pa {
		return len(a.Tokens), pb + len(a.Tokens) - pa // b wrote more
	}
	return -1, -1
}
