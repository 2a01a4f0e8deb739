package session

import (
	"loupe/format"
	"loupe/trace"
)

// View is everything a panel reads, built from the State once per redraw:
// a panel shows a View and never reaches into the window for more.
type View struct {
	Info      trace.ModelInfo
	Tokens    []trace.Token
	Steps     []trace.Step
	Attention []trace.Attention
	MLPs      []trace.MLP
	Run       *trace.Run     // the last finished run; nil while one runs
	Timings   []trace.Timing // finished runs, then the running one when it has read its prompt
	Running   bool
	Query     int // the selected token, a valid index or -1
	Source    int // -1: the strongest
	Follow    bool
	A, B      *trace.Run // the compared pair; nil when none
	Kind      string
	Heads     []trace.Head
	Count     format.Numbering
}

// View is what the panels show now. The slices are the State's own: a
// panel reads them and keeps no reference past its next View.
func (s *State) View() View {
	v := View{Info: s.Info, Tokens: s.Tokens, Steps: s.Steps, Attention: s.Attention, MLPs: s.MLPs,
		Running: s.Running, Query: s.Query, Source: s.Source, Follow: s.Follow, Kind: s.Kind,
		Heads: s.Heads, Count: s.Count, Timings: s.Timings}
	if !s.Running {
		v.Run = s.LastRun
	}
	if s.Running && s.Live.PrefillTokens > 0 {
		v.Timings = append(s.Timings[:len(s.Timings):len(s.Timings)], s.Live)
	}
	if v.Query < 0 || v.Query >= len(s.Tokens) {
		v.Query = -1
	}
	v.A, v.B, _ = s.Pair()
	return v
}

// Selected reports whether the View has a token to show.
func (v View) Selected() bool { return v.Query >= 0 }
