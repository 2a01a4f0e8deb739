package session

import (
	"testing"

	"loupe/engine/experiment"
	"loupe/engine/perf"
	"loupe/trace"
)

// written is a run of prompt then generated token ids, positions counted
// from 0, one step per generated token.
func written(prompt []int, gen ...int) *trace.Run {
	r := &trace.Run{}
	for i, id := range append(append([]int{}, prompt...), gen...) {
		g := i >= len(prompt)
		r.Tokens = append(r.Tokens, trace.Token{ID: id, Pos: i, Generated: g})
		if g {
			r.Steps = append(r.Steps, trace.Step{Pos: i})
		}
	}
	return r
}

// pairOf is a session whose history is a then b, compared as A and B,
// with a shown in the stream.
func pairOf(a, b *trace.Run) *State {
	s := New()
	s.Remember(a)
	s.Remember(b)
	s.Pick(0, 1, "B is A with heads switched off")
	s.LastRun, s.Tokens = a, a.Tokens
	return s
}

// With A on screen the Compare tab compares at the selected token: a
// written token at its own step, a prompt token at the step after it, the
// grid at the chosen source; the View carries the pair and its sentence.
func TestViewComparesAtTheSelection(t *testing.T) {
	a, b := written([]int{1, 2, 3}, 10, 11, 12), written([]int{1, 2, 3}, 10, 20, 21)
	s := pairOf(a, b)
	s.SelectQuery(4)
	s.SelectSource(2)
	v := s.View()
	if v.A != a || v.B != b || v.Kind != "B is A with heads switched off" {
		t.Fatalf("pair %p %p %q, want A, B and their sentence", v.A, v.B, v.Kind)
	}
	if want := (Compared{Pos: 4, Query: 4, Source: 2}); v.Compared != want {
		t.Errorf("written token 4: compared %+v, want %+v", v.Compared, want)
	}
	s.SelectQuery(1) // the source 2 is after it: the strongest, and no attention captured
	if want := (Compared{Pos: 2, Query: 1, Source: -1}); s.View().Compared != want {
		t.Errorf("prompt token 1: compared %+v, want %+v", s.View().Compared, want)
	}
}

// The grid's source left to the strongest is the key the captured
// attention of the query weighs most (not the first token), as the
// attention panel outlines it.
func TestComparedSourceIsTheStrongest(t *testing.T) {
	a, b := written([]int{1, 2, 3, 4}, 10), written([]int{1, 2, 3, 4}, 20)
	s := pairOf(a, b)
	w := []float32{0.5, 0.1, 0.3, 0.05, 0.05} // key 0 the sink, then key 2
	s.Attention = []trace.Attention{{QueryPos: 4, Weights: [][][]float32{{w, w}}}}
	s.SelectQuery(4)
	if got := s.View().Compared.Source; got != 2 {
		t.Errorf("source %d, want 2 (the strongest key after the first)", got)
	}
}

// With B on screen and a prompt that differs by an inserted word, the
// selection is read in A's positions: B's 5 (the prompt's last token)
// is A's 3.
func TestComparedMapsBsPositionsToA(t *testing.T) {
	a := written([]int{1, 2, 3, 4}, 10, 11)
	b := written([]int{1, 7, 7, 2, 3, 4}, 10, 12) // two tokens inserted after the first
	s := pairOf(a, b)
	s.LastRun, s.Tokens = b, b.Tokens
	s.SelectQuery(5)
	s.SelectSource(4)
	if want := (Compared{Pos: 4, Query: 3, Source: 2}); s.View().Compared != want {
		t.Errorf("compared %+v, want %+v", s.View().Compared, want)
	}
	s.SelectQuery(1) // an inserted token: A has none, the tab takes its own step
	if want := (Compared{Pos: 5, Query: 5, Source: -1}); s.View().Compared != want {
		t.Errorf("inserted token: compared %+v, want %+v (where B's text first leaves A's)", s.View().Compared, want)
	}
}

// A run on screen that is not in the history (one going on, or another
// prompt) leaves the tab at its own step: the one ◀ ▶ chose, else where
// B's text first leaves A's, else A's first written token.
func TestComparedOwnStep(t *testing.T) {
	a, b := written([]int{1, 2}, 10, 11, 12), written([]int{1, 2}, 10, 11, 13)
	s := pairOf(a, b)
	s.LastRun, s.Tokens, s.Running = nil, written([]int{5, 6, 7}).Tokens, true
	s.SelectQuery(2)
	if want := (Compared{Pos: 4, Query: 4, Source: -1}); s.View().Compared != want {
		t.Errorf("running: compared %+v, want %+v (B first leaves A at 4)", s.View().Compared, want)
	}
	s.Step = 3
	if want := (Compared{Pos: 3, Query: 3, Source: -1}); s.View().Compared != want {
		t.Errorf("step chosen: compared %+v, want %+v", s.View().Compared, want)
	}
	s.Step = -1
	s.Runs[1] = written([]int{1, 2}, 10, 11, 12) // B wrote what A wrote
	if want := (Compared{Pos: 2, Query: 2, Source: -1}); s.View().Compared != want {
		t.Errorf("same text: compared %+v, want %+v (A's first written token)", s.View().Compared, want)
	}
}

// The Model tab reads the model's name from the View; the window may
// replace it (the demo's name in its language).
func TestViewCarriesTheModel(t *testing.T) {
	s := New()
	s.Info = trace.ModelInfo{Name: "Qwen2.5-0.5B", Layers: 24}
	v := s.View()
	if v.ModelName != "Qwen2.5-0.5B" || v.Info.Layers != 24 {
		t.Errorf("model %q with %d layers", v.ModelName, v.Info.Layers)
	}
	s.AdoptCeiling(perf.Ceiling{Best: perf.Bandwidth{BestGBs: 46.5}})
	s.Measuring = true
	if v := s.View(); v.Bandwidth != 46.5 || !v.Measuring {
		t.Errorf("bandwidth %v, measuring %v: the Timing tab reads 46.5 GB/s being measured", v.Bandwidth, v.Measuring)
	}
	if v.A != nil || v.B != nil || v.Compared != (Compared{}) {
		t.Errorf("no pair chosen, the View has %p %p at %+v", v.A, v.B, v.Compared)
	}
}

// The Experiments tab reads the session's result and its sentence from
// the View, whatever the selection.
func TestViewCarriesTheExperiment(t *testing.T) {
	s := New()
	r := &experiment.Result{What: experiment.Context}
	s.Experiment = Experiment{Result: r, Reading: "the cache costs a quarter"}
	s.Tokens = make([]trace.Token, 3)
	for _, q := range []int{-1, 2} {
		s.SelectQuery(q)
		if e := s.View().Experiment; e.Result != r || e.Reading != "the cache costs a quarter" {
			t.Errorf("query %d: experiment %+v", q, e)
		}
	}
}
