package views

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"loupe/trace"
)

// This file holds the arithmetic of comparing two runs (an ablation, a
// variant prompt, any two runs of the history); the panel that shows it
// is comparepanel.go.

// TopHeads are the n cells of a layers × heads grid with the largest
// values (the heads that look most at the source), largest first; ties go
// to the lower layer, then the lower head.
func TopHeads(g [][]float64, n int) []trace.Head {
	var all []trace.Head
	for l, row := range g {
		for h := range row {
			all = append(all, trace.Head{Layer: l, Head: h})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return g[all[i].Layer][all[i].Head] > g[all[j].Layer][all[j].Head] })
	return all[:min(max(n, 0), len(all))]
}

// RandomHeads draws n distinct heads of a layers × heads model, the same
// ones for the same seed (PCG seeded with seed, a partial Fisher–Yates
// shuffle of every head), in the order drawn.
func RandomHeads(layers, heads, n int, seed uint64) []trace.Head {
	total := layers * heads
	n = min(max(n, 0), total)
	idx := make([]int, total)
	for i := range idx {
		idx[i] = i
	}
	r := rand.New(rand.NewPCG(seed, 0x6c6f757065)) // "loupe"
	out := make([]trace.Head, n)
	for i := range n {
		j := i + r.IntN(total-i)
		idx[i], idx[j] = idx[j], idx[i]
		out[i] = trace.Head{Layer: idx[i] / heads, Head: idx[i] % heads}
	}
	return out
}

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

// Describe says in a sentence how the prompts of A and B line up.
func (al Alignment) Describe(a, b []trace.Token) string {
	span := func(toks []trace.Token, r [2]int) string {
		var parts []string
		for i := r[0]; i < r[1] && i < len(toks); i++ {
			parts = append(parts, toks[i].Text)
		}
		if len(parts) == 0 {
			return "nothing"
		}
		return "«" + Visible(strings.Join(parts, "")) + "»"
	}
	switch {
	case al.Same:
		return "Same prompt: every position of A is the same position of B."
	case al.Substituted:
		where := fmt.Sprintf("positions %d…%d", al.ChangedA[0], al.ChangedA[1]-1)
		if al.ChangedA[1]-al.ChangedA[0] == 1 {
			where = fmt.Sprintf("position %d", al.ChangedA[0])
		}
		return fmt.Sprintf("The prompts differ at %s: %s in A, %s in B; every other token lines up with its twin.",
			where, span(a, al.ChangedA), span(b, al.ChangedB))
	}
	return fmt.Sprintf("The prompts do not align token for token: %s (%d tokens) in A became %s (%d tokens) in B, so "+
		"positions after it are shifted; only the tokens before and after the change are compared.",
		span(a, al.ChangedA), al.ChangedA[1]-al.ChangedA[0], span(b, al.ChangedB), al.ChangedB[1]-al.ChangedB[0])
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

// Line is the delta as the article writes it: «purple» 90.3 % ⟶ 92.5 % (Δp +2.2 points).
func (d Delta) Line() string {
	if !d.HasA {
		return fmt.Sprintf("A generated no token at position %d.", d.Pos)
	}
	name := "«" + clip(Visible(d.Token.Text), 24) + "»"
	switch {
	case !d.HasB:
		return fmt.Sprintf("%s %.1f %% in A; B generated no token at this step.", name, 100*d.Token.P)
	case !d.InB:
		return fmt.Sprintf("%s %.1f %% in A ⟶ below B's top %d in B (B chose «%s» %.1f %%).", name, 100*d.Token.P,
			len(d.StepB.Top), clip(Visible(d.ChosenB.Text), 24), 100*d.ChosenB.P)
	}
	s := fmt.Sprintf("%s %.1f %% ⟶ %.1f %%  (Δp %+.1f points)", name, 100*d.Token.P, 100*d.PB, 100*(d.PB-d.Token.P))
	if d.Diverged {
		s += fmt.Sprintf("; B chose «%s» (%.1f %%)", clip(Visible(d.ChosenB.Text), 24), 100*d.ChosenB.P)
	}
	return s
}

// GridDiff is b − a cell by cell (the shapes of a).
func GridDiff(a, b [][]float64) [][]float64 {
	d := make([][]float64, len(a))
	for l := range a {
		d[l] = make([]float64, len(a[l]))
		for h := range a[l] {
			if l < len(b) && h < len(b[l]) {
				d[l][h] = b[l][h] - a[l][h]
			}
		}
	}
	return d
}

// MaxAbs is the largest |v| of a grid.
func MaxAbs(g [][]float64) float64 {
	m := 0.0
	for _, row := range g {
		for _, v := range row {
			m = max(m, v, -v)
		}
	}
	return m
}

// RunLabel names a run of the history in one short line: its number, how
// it was decoded, the heads switched off, and the start of its prompt.
func RunLabel(i int, r *trace.Run, base int) string {
	mode := "greedy"
	if r.Settings.Temperature > 0 {
		mode = fmt.Sprintf("T %.2g seed %d", r.Settings.Temperature, r.Settings.Seed)
	}
	s := fmt.Sprintf("run %d · %s · %s", i+1, mode, r.Settings.Kernels)
	if n := len(r.Settings.Ablate); n > 0 {
		s += fmt.Sprintf(" · %d head%s off", n, plural(n))
	}
	return s + " · " + clip(strings.Join(strings.Fields(r.Prompt), " "), 40)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
