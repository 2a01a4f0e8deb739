package session

import (
	"loupe/trace"
	"loupe/trace/stats"
)

// Compared is where the Compare tab compares runs A and B, in positions
// of A: the step that wrote the token at Pos (Δp and both top-10 lists)
// and the attention grid of Query on Source (-1: the strongest source).
type Compared struct{ Pos, Query, Source int }

// compared is where the pair a, b is compared now: at the selected token
// and grid source when the run on screen lines up with A, else at the
// step ◀ ▶ chose, where B's text first leaves A's, or A's first written
// token.
func (s *State) compared(a, b *trace.Run) Compared {
	q, src := s.PositionsInA(a)
	if q < 0 || s.Running { // running: the stream shows a run not yet in the history
		q, src = s.ownStep(a, b), -1
	}
	pos := q
	if q >= 0 && q < len(a.Tokens) && !a.Tokens[q].Generated {
		pos = q + 1 // a prompt token: the step that predicts after it
	}
	return Compared{Pos: pos, Query: q, Source: src}
}

// gridSource is the source of the attention grid on screen: the chosen
// one, else the strongest for the selected query (as the grid finds it).
func (s *State) gridSource() int {
	if s.Source >= 0 {
		return s.Source
	}
	if att, ok := stats.AttentionAt(s.Attention, s.Query); ok {
		return stats.StrongestSource(att)
	}
	return -1
}

// PositionsInA maps the selected query and the grid's source (positions
// of the run on screen) to positions of run a (-1: none).
func (s *State) PositionsInA(a *trace.Run) (q, src int) {
	q, src = s.Query, s.gridSource()
	cur := s.LastRun
	if cur == nil || cur == a || s.Running {
		return q, src
	}
	al := stats.Align(cur.Tokens, a.Tokens, stats.PromptLen(cur), stats.PromptLen(a))
	at := func(i int) int {
		if i < 0 || i >= len(al.AtoB) {
			return -1
		}
		return al.AtoB[i]
	}
	return at(q), at(src)
}

// ownStep is the position of A compared when the run on screen does not
// line up with A: the one ◀ ▶ chose, else where B's text first leaves
// A's, else A's first written token.
func (s *State) ownStep(a, b *trace.Run) int {
	if s.Step >= 0 && s.Step < len(a.Tokens) {
		return s.Step
	}
	al := stats.Align(a.Tokens, b.Tokens, stats.PromptLen(a), stats.PromptLen(b))
	if first, _ := stats.FirstWritten(a, b, al); first >= 0 && first < len(a.Tokens) {
		return first
	}
	if len(a.Steps) > 0 {
		return a.Steps[0].Pos
	}
	return -1
}
