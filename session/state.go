// Package session is the window's state without the window: the run on
// screen, the history of finished runs, the selected token, the compared
// pair, the heads chosen to be switched off, the chat's turns and the way
// layers and heads are counted. The window (package app) changes it
// through its methods and shows the View it builds; nothing here imports
// Fyne, so every rule of what the window shows is tested without one.
package session

import (
	"errors"
	"slices"

	"loupe/engine/chat"
	"loupe/engine/perf"
	"loupe/format"
	"loupe/trace"
)

// MaxHistory is how many finished runs the Compare tab can choose from;
// older ones are dropped (a run keeps its attention: up to ~88 MB).
const MaxHistory = 12

// State is what the window shows and remembers. The window's goroutine
// owns it; the generation hands its events over before they land here.
type State struct {
	Info trace.ModelInfo // the model open

	// The run on screen (prompt then generated tokens) and the timings of
	// every run since start.
	Tokens    []trace.Token
	Steps     []trace.Step      // of the current run
	Attention []trace.Attention // of the current run
	MLPs      []trace.MLP       // of the last finished run
	LastRun   *trace.Run        // the last finished run
	Timings   []trace.Timing    // every finished run since start
	Labels    []string          // the Timing tab's names of Timings ("" or missing: "run N")
	Live      trace.Timing      // the running generation so far
	Running   bool              // a generation is under way
	Settings  trace.Settings    // of the running generation
	Ceiling   perf.Ceiling      // the machine's cached probes (AdoptCeiling)
	Beside    perf.Bandwidth    // the best probe of the open model's own weights since it loaded (AdoptBeside)
	Measuring bool              // the bandwidth is being measured

	// The selection the panels follow.
	Query  int  // selected token, -1 when none
	Source int  // source token of the grid, -1: the strongest
	Follow bool // the selection follows the newest token

	// The history and the compared pair.
	Runs    []*trace.Run // finished runs, oldest first
	A, B    int          // indices into Runs of the compared pair; -1: none
	Kind    string       // what B is to A, in a sentence
	Step    int          // the position of A compared when the stream's run does not line up with A; -1: where B first leaves A
	SourceA int          // the source of A's grid kept across a rerun (-1: none)
	Role    *Role        // what the running generation is for (nil: a plain run)
	Variant string       // the last variant prompt compared

	Experiment Experiment // the result of the Experiments tab

	Heads []trace.Head   // heads selected to be switched off
	Turns []chat.Message // the conversation, without its system message
	Count format.Numbering
}

// Role says what a rerun compares against.
type Role struct {
	Base    *trace.Run // run A
	Kind    string
	SourceA int // the grid's source in A when the rerun was asked
}

// New is an empty session: nothing selected, no pair.
func New() *State {
	return &State{Query: -1, Source: -1, A: -1, B: -1, SourceA: -1, Step: -1}
}

// SelectQuery makes pos the query token of the panels; the source stays
// only when it is at or before it.
func (s *State) SelectQuery(pos int) {
	s.Query = pos
	s.Follow = s.Running && pos == len(s.Tokens)-1
	if s.Source > pos {
		s.Source = -1
	}
}

// SelectSource makes pos the source token of the attention grid; one
// after the query means the strongest.
func (s *State) SelectSource(pos int) {
	s.Source = pos
	if s.Query >= 0 && pos > s.Query {
		s.Source = -1
	}
}

// Remember adds a finished run to the history, the oldest dropped beyond
// MaxHistory; a rerun becomes run B of the comparison with its run A.
func (s *State) Remember(run *trace.Run) {
	s.SourceA = -1
	s.Runs = append(s.Runs, run)
	if d := len(s.Runs) - MaxHistory; d > 0 {
		// The pair's indices follow their runs; a run dropped ends the pair.
		s.Runs = slices.Delete(s.Runs, 0, d)
		s.A, s.B = s.A-d, s.B-d
	}
	if s.Role != nil {
		if ia := slices.Index(s.Runs, s.Role.Base); ia >= 0 {
			s.A, s.B, s.Kind, s.SourceA, s.Step = ia, len(s.Runs)-1, s.Role.Kind, s.Role.SourceA, -1
		}
		s.Role = nil
	} else if !s.valid(s.A) || !s.valid(s.B) {
		s.A, s.B = -1, -1
	}
}

func (s *State) valid(i int) bool { return i >= 0 && i < len(s.Runs) }

// Pair is the compared runs A and B; false when none is chosen.
func (s *State) Pair() (a, b *trace.Run, ok bool) {
	if !s.valid(s.A) || !s.valid(s.B) {
		return nil, nil, false
	}
	return s.Runs[s.A], s.Runs[s.B], true
}

// IsB reports whether run was made as run B of a comparison (a rerun with
// heads switched off, or a variant).
func (s *State) IsB(run *trace.Run) bool {
	return s.valid(s.B) && s.Runs[s.B] == run && s.A != s.B
}

// Pick makes runs a and b of the history the compared pair, kind saying
// what B is to A; false when either is not in the history.
func (s *State) Pick(a, b int, kind string) bool {
	if !s.valid(a) || !s.valid(b) {
		return false
	}
	s.A, s.B, s.Step, s.Kind = a, b, -1, kind
	return true
}

// ToggleHead adds a head to, or removes it from, the heads to switch off.
func (s *State) ToggleHead(h trace.Head) {
	if i := slices.Index(s.Heads, h); i >= 0 {
		s.Heads = slices.Delete(s.Heads, i, i+1)
	} else {
		s.Heads = append(s.Heads, h)
	}
}

// Counterfactual reports whether a run changed the model: heads or
// experts switched off, or fewer experts per token.
func Counterfactual(s trace.Settings) bool {
	return len(s.Ablate) > 0 || len(s.DisableExperts) > 0 || s.TopKExperts > 0
}

// BaseRun is run A of a counterfactual: the run shown, or, when that run
// changed the model, the latest run of the same prompt and sampling
// settings that did not.
func (s *State) BaseRun() (*trace.Run, error) {
	cur := s.LastRun
	if cur == nil {
		return nil, errors.New("generate first: the heads are switched off in a rerun of the run shown")
	}
	if !Counterfactual(cur.Settings) {
		return cur, nil
	}
	for i := len(s.Runs) - 1; i >= 0; i-- {
		r := s.Runs[i]
		a, c := r.Settings, cur.Settings
		if !Counterfactual(a) && r.Prompt == cur.Prompt && a.Seed == c.Seed && a.Temperature == c.Temperature &&
			a.MaxTokens == c.MaxTokens && a.TopK == c.TopK && a.TopP == c.TopP && a.MinP == c.MinP {
			return r, nil
		}
	}
	return cur, nil
}

// BranchPos is the position where one of a and b forced a token in place
// of the other's (the same prompt): the step a comparison of a branch
// with its original starts at.
func BranchPos(a, b *trace.Run) (int, bool) {
	if a.Prompt != b.Prompt {
		return 0, false
	}
	for _, r := range []*trace.Run{b, a} {
		if br := r.Settings.Branch; br != nil && br.At >= 0 && br.At < len(r.Steps) {
			return r.Steps[br.At].Pos, true
		}
	}
	return 0, false
}
