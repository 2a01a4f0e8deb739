package session

import (
	"slices"
	"testing"
	"time"

	"loupe/engine/experiment"
	"loupe/engine/perf"
	"loupe/trace"
)

// The Timing tab reads every run kept, in order, each under its name:
// a plain run "run N" (no label), a chat turn named once its reply is
// read, the lesson's measurements under theirs; the live run follows
// them and the probes behind the bandwidth come with it.
func TestViewCarriesTheTimings(t *testing.T) {
	s := New()
	s.KeepTiming(trace.Timing{DecodeTokens: 1}, "")
	s.KeepTiming(trace.Timing{DecodeTokens: 2}, "")
	s.NameLastTiming("run 2 · think on")
	s.Timings = append(s.Timings, trace.Timing{DecodeTokens: 3}) // kept without a name
	s.KeepTiming(trace.Timing{DecodeTokens: 4}, "run 4 · heads switched off (lesson)")
	b := perf.Bandwidth{BestGBs: 41, Threads: 2, When: time.Unix(1e9, 0)}
	s.AdoptCeiling(perf.Ceiling{Best: b, Probes: []perf.Bandwidth{b}})
	s.Running, s.Live = true, trace.Timing{PrefillTokens: 5}
	v := s.View()
	var written []int
	for _, tm := range v.Timings {
		written = append(written, tm.DecodeTokens)
	}
	if !slices.Equal(written, []int{1, 2, 3, 4, 0}) || !v.Live {
		t.Errorf("timings of runs writing %v (live %v), want 1 2 3 4 then the live one", written, v.Live)
	}
	if want := []string{"", "run 2 · think on", "", "run 4 · heads switched off (lesson)"}; !slices.Equal(v.Labels, want) {
		t.Errorf("labels %q, want %q", v.Labels, want)
	}
	if v.Bandwidth != 41 || len(v.Ceiling.Probes) != 1 || !v.Ceiling.Best.When.Equal(b.When) {
		t.Errorf("bandwidth %v from %d probes: want 41 GB/s from one", v.Bandwidth, len(v.Ceiling.Probes))
	}
}

// The Experiments tab reads the choice, its plan, the running state, the progress and
// the status from the View: a start keeps the choice and its plan and clears the last
// result, the end shows the new one, a failure keeps none.
func TestViewCarriesTheRunningExperiment(t *testing.T) {
	s := New()
	s.Experiment = Experiment{Result: &experiment.Result{}, Key: experiment.Threads, Plan: "3 runs, about 2 min", Saved: true}
	s.StartExperiment("Starting…")
	s.ExperimentProgress(0.25, "run 1 of 3")
	e := s.View().Experiment
	if !e.Running || e.Result != nil || e.Key != experiment.Threads || e.Plan != "3 runs, about 2 min" || e.Progress != 0.25 || e.Status != "run 1 of 3" || !e.Saved {
		t.Fatalf("running: %+v", e)
	}
	r := &experiment.Result{What: experiment.Threads}
	s.EndExperiment(r, "two threads read as fast as four", "")
	if e := s.View().Experiment; e.Running || e.Result != r || e.Reading != "two threads read as fast as four" || e.Progress != 0 {
		t.Errorf("done: %+v", e)
	}
	s.StartExperiment("Starting…")
	s.EndExperiment(nil, "", "failed: out of memory")
	if e := s.View().Experiment; e.Running || e.Result != nil || e.Status != "failed: out of memory" {
		t.Errorf("failed: %+v", e)
	}
}

// TestYardstick: decode is set against the open model's weights' best
// probe where there is one (a buffer's probe does not count), else the
// machine's cached figure; a new model starts again from the machine's.
func TestYardstick(t *testing.T) {
	s := New()
	machine := perf.Bandwidth{BestGBs: 40, Source: perf.SourceBuffer}
	s.AdoptCeiling(perf.Ceiling{Best: machine, Probes: []perf.Bandwidth{machine}})
	steps := []struct {
		what string
		do   func()
		want float64
	}{
		{"the machine's figure", func() {}, 40},
		{"a buffer's probe", func() { s.AdoptBeside(perf.Bandwidth{BestGBs: 45, Source: perf.SourceBuffer}) }, 40},
		{"the weights' probe", func() { s.AdoptBeside(perf.Bandwidth{BestGBs: 33, Source: perf.SourceWeights}) }, 33},
		{"a lower one of the same weights", func() { s.AdoptBeside(perf.Bandwidth{BestGBs: 31, Source: perf.SourceWeights}) }, 33},
		{"a higher machine figure", func() {
			m := perf.Bandwidth{BestGBs: 50, Source: perf.SourceBuffer}
			s.AdoptCeiling(perf.Ceiling{Best: m, Probes: []perf.Bandwidth{m}})
		}, 33},
		{"another model", s.ForgetBeside, 50},
	}
	for _, st := range steps {
		st.do()
		if s.Yardstick() != st.want || s.View().Bandwidth != st.want {
			t.Errorf("after %s: %v GB/s, want %v", st.what, s.Yardstick(), st.want)
		}
	}
}
