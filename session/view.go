package session

import (
	"loupe/engine/perf"
	"loupe/format"
	"loupe/trace"
)

// View is everything a panel reads, built from the State once per redraw:
// a panel shows a View and never reaches into the window for more.
type View struct {
	Info       trace.ModelInfo
	Tokens     []trace.Token
	Steps      []trace.Step
	Attention  []trace.Attention
	MLPs       []trace.MLP
	Run        *trace.Run     // the last finished run; nil while one runs
	Timings    []trace.Timing // finished runs, then the running one when it has read its prompt
	Labels     []string       // the names of Timings' runs ("" or missing: "run N")
	Running    bool
	Query      int // the selected token, a valid index or -1
	Source     int // -1: the strongest
	Follow     bool
	A, B       *trace.Run // the compared pair; nil when none
	Kind       string
	Compared   Compared   // where A and B are compared, when they are
	Experiment Experiment // the Experiments tab's result
	Heads      []trace.Head
	Count      format.Numbering
	Settings   trace.Settings // of the run shown: the running one, else the last finished (the sampler's stages)
	Live       bool           // Timings ends with the running generation

	Bandwidth float64        // the read GB/s decode is set against, 0 unknown
	Ceiling   perf.Ceiling   // the machine's cached probes: their dates and load
	Beside    perf.Bandwidth // the open model's weights' best probe (zero: none; then Bandwidth is the Ceiling's)
	Measuring bool           // the bandwidth is being measured

	// What the window adds from the model.
	OnDemand  bool                   // a position the run did not capture can be recomputed now
	Embedding func(id int) []float32 // a row of the embedding table; nil when the model cannot read one
	Inspected Inspected              // the last position recomputed against the run's cache

	// The Model tab's: the model's name as the window says it (Info.Name,
	// or the demo model's name in the window's language), the CPU and
	// the kernels it runs on.
	ModelName, CPU, Kernels string
}

// Inspected is the last recomputation of a finished run's position (one
// decode step against its KV cache) and the KV rows read with it.
type Inspected struct {
	Run           *trace.Run
	Pos           int // -1: KV rows only
	Layer, KVHead int
	Result        *trace.Inspection // nil until one arrives
	Rows          trace.KVRows
	Err           error
}

// Has reports whether the recomputation of run's position pos is there.
func (in Inspected) Has(run *trace.Run, pos int) bool {
	return in.Result != nil && in.Run == run && in.Result.Pos == pos
}

// Failed reports whether the recomputation of run's position pos failed.
func (in Inspected) Failed(run *trace.Run, pos int) bool {
	return in.Err != nil && in.Run == run && in.Pos == pos
}

// HasRows reports whether the KV rows of run's layer and K/V head are there.
func (in Inspected) HasRows(run *trace.Run, layer, kvHead int) bool {
	return in.Run == run && in.Layer == layer && in.KVHead == kvHead && len(in.Rows.Keys) > 0
}

// View is what the panels show now. The slices are the State's own: a
// panel reads them and keeps no reference past its next View.
func (s *State) View() View {
	v := View{Info: s.Info, Tokens: s.Tokens, Steps: s.Steps, Attention: s.Attention, MLPs: s.MLPs,
		Running: s.Running, Query: s.Query, Source: s.Source, Follow: s.Follow, Kind: s.Kind,
		Heads: s.Heads, Count: s.Count, Timings: s.Timings, Experiment: s.Experiment,
		Labels: s.Labels, Bandwidth: s.Yardstick(), Ceiling: s.Ceiling, Beside: s.Beside, Measuring: s.Measuring}
	if !s.Running {
		v.Run = s.LastRun
	}
	v.Settings = s.Settings
	if s.LastRun != nil && !s.Running {
		v.Settings = s.LastRun.Settings
	}
	if s.Running && s.Live.PrefillTokens > 0 {
		v.Timings, v.Live = append(s.Timings[:len(s.Timings):len(s.Timings)], s.Live), true
	}
	if v.Query < 0 || v.Query >= len(s.Tokens) {
		v.Query = -1
	}
	if a, b, ok := s.Pair(); ok {
		v.A, v.B, v.Compared = a, b, s.compared(a, b)
	}
	v.ModelName = s.Info.Name
	return v
}

// Selected reports whether the View has a token to show.
func (v View) Selected() bool { return v.Query >= 0 }
