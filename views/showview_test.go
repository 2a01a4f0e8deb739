package views

import (
	"slices"
	"strings"
	"testing"
	"time"

	"loupe/engine/experiment"
	"loupe/engine/perf"
	"loupe/session"
	"loupe/trace"
	"loupe/viz"
)

// The Model tab draws the model of the View, under the name the View
// gives it, with its CPU and kernel lines; before a model is open it
// draws nothing.
func TestModelPanelShowsTheView(t *testing.T) {
	newTestApp(t)
	p := NewModelPanel()
	p.ShowView(session.View{})
	if p.Rows() != nil {
		t.Fatalf("no model open, rows %v", p.Rows())
	}
	m := trace.ModelInfo{Name: "demo-qwen2", Architecture: "Qwen2ForCausalLM", ModelType: "qwen2", Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 16}
	p.ShowView(session.View{Info: m, ModelName: "Demo model", CPU: "Xeon, 2 cores", Kernels: "AVX2 kernels"})
	rows := map[string]string{}
	for _, r := range p.Rows() {
		rows[r[0]] = r[1]
	}
	if rows["Model"] != "Demo model (Qwen2ForCausalLM, qwen2)" || rows["CPU"] != "Xeon, 2 cores" || rows["Kernels"] != "AVX2 kernels" {
		t.Errorf("rows %v", rows)
	}
	if !strings.Contains(rows["Shape"], "2") || !strings.Contains(rows["Shape"], "4") {
		t.Errorf("Shape row %q lacks the 2 layers and 4 heads", rows["Shape"])
	}
	if p.Figure() == nil {
		t.Error("no figure of where the parameters are")
	}
}

// compareRuns are A and B of the same prompt: the same first written
// token (p 0.903 in A, 0.925 in B), then 6 in A where B wrote 7.
func compareRuns() (a, b *trace.Run) {
	step := func(pos, id int, p float64, others ...trace.Candidate) trace.Step {
		c := trace.Candidate{ID: id, Text: "x", P: p}
		return trace.Step{Pos: pos, Chosen: c, Top: append([]trace.Candidate{c}, others...)}
	}
	a = &trace.Run{Tokens: append(toks(1, 2, 3), trace.Token{ID: 5, Pos: 3, Generated: true}, trace.Token{ID: 6, Pos: 4, Generated: true}),
		Steps: []trace.Step{step(3, 5, 0.903), step(4, 6, 0.5)}}
	b = &trace.Run{Tokens: append(toks(1, 2, 3), trace.Token{ID: 5, Pos: 3, Generated: true}, trace.Token{ID: 7, Pos: 4, Generated: true}),
		Steps: []trace.Step{step(3, 5, 0.925), step(4, 7, 0.6, trace.Candidate{ID: 6, P: 0.3})}}
	return a, b
}

// The Compare tab compares the View's pair where the View says, and says
// what B is in the View's words; a View without a pair empties it.
func TestComparePanelShowsTheView(t *testing.T) {
	newTestApp(t)
	a, b := compareRuns()
	p := NewComparePanel()
	p.SetCount(viz.FromOne)
	p.ShowView(session.View{A: a, B: b, Kind: "B is A with heads switched off", Compared: session.Compared{Pos: 3, Query: 2, Source: 1}})
	c, ok := p.Comparison()
	if !ok || c.A != a || c.B != b || c.Delta.Pos != 3 || c.QueryA != 2 || c.SourceA != 1 {
		t.Fatalf("comparison %v: A %p B %p at step %d, grid %d → %d", ok, c.A, c.B, c.Delta.Pos, c.QueryA, c.SourceA)
	}
	if p.Kind.Text != "B is A with heads switched off" || c.FirstA != 4 {
		t.Errorf("kind %q, first divergence %d (want 4)", p.Kind.Text, c.FirstA)
	}
	if line := DeltaLine(c.Delta); !strings.Contains(line, "90.3 % ⟶ 92.5 %") {
		t.Errorf("Δp line %q", line)
	}
	p.ShowView(session.View{A: a, B: b, Running: true, Compared: session.Compared{Pos: 4, Query: 4, Source: -1}})
	if c, _ := p.Comparison(); c.Delta.Pos != 4 || !c.Delta.Diverged {
		t.Errorf("another step while a run goes on: step %d, diverged %v, want 4 and true", c.Delta.Pos, c.Delta.Diverged)
	}
	p.ShowView(session.View{})
	if _, ok := p.Comparison(); ok || p.Title.Text != tr("app.compare.nothing", nil) {
		t.Errorf("no pair: still compared %v, title %q", ok, p.Title.Text)
	}
}

// The Experiments tab draws the View's result: its figure, the sentence
// the View gives and the result's notes; the same View is not drawn
// again, and a View without a result clears the panel.
func TestExperimentsPanelShowsTheView(t *testing.T) {
	newTestApp(t)
	p := NewExperimentsPanel([]Experiment{{Key: experiment.Context, Title: "Context"}})
	p.ShowView(session.View{})
	if p.Figure() != nil || !p.Save.Disabled() {
		t.Fatalf("no result, figure %v, Save enabled %v", p.Figure(), !p.Save.Disabled())
	}
	r := &experiment.Result{What: experiment.Context, Stopped: "stopped at 2,048 tokens", Notes: []string{"one thread"},
		Points: []experiment.Point{{Label: "256", DecodeTokS: 40, PrefillTokS: 900}, {Label: "2,048", DecodeTokS: 30, PrefillTokS: 600}}}
	v := session.View{Experiment: session.Experiment{Result: r, Reading: "Reading 8 times the cache costs a quarter."}}
	p.ShowView(v)
	fig := p.Figure()
	if fig == nil || p.Save.Disabled() {
		t.Fatalf("result shown: figure %v, Save disabled %v", fig, p.Save.Disabled())
	}
	if p.Reading.Text != v.Experiment.Reading || p.Notes.Text != "stopped at 2,048 tokens\none thread" {
		t.Errorf("reading %q, notes %q", p.Reading.Text, p.Notes.Text)
	}
	if want := float32(110 + 2*19*2); p.fig.need != want {
		t.Errorf("the figure reads at %v px, want %v (two bars a point)", p.fig.need, want)
	}
	p.ShowView(v)
	if p.Figure() != fig {
		t.Error("the same result was drawn again")
	}
	p.ShowView(session.View{})
	if p.Figure() != nil || p.Reading.Text != "" || !p.Save.Disabled() {
		t.Errorf("result gone: figure %v, reading %q", p.Figure(), p.Reading.Text)
	}
}

// The Experiments tab draws the running state of the View: the experiment
// chosen in the list (not calling OnChoose, which is the user's), Cancel and the
// progress bar instead of Run, the plan and the status; once done, Run
// again, the plan hidden under the result, and Re-run only for a result
// opened from its file.
func TestExperimentsPanelShowsTheRunningState(t *testing.T) {
	newTestApp(t)
	p := NewExperimentsPanel([]Experiment{{Key: experiment.Context, Title: "Context"}, {Key: experiment.Threads, Title: "Threads"}})
	chosen := ""
	p.OnChoose = func(key string) { chosen = key }
	e := session.Experiment{Key: experiment.Threads, Plan: "4 runs, about 1 min", Status: "run 2 of 4", Running: true, Progress: 0.5}
	p.ShowView(session.View{Experiment: e})
	if p.Selected() != experiment.Threads || chosen != "" {
		t.Errorf("the View's choice: list shows %q, OnChoose(%q) called as if the user picked it", p.Selected(), chosen)
	}
	if !p.Run.Disabled() || p.Cancel.Disabled() || !p.Progress.Visible() || p.Progress.Value != 0.5 {
		t.Errorf("running: Run disabled %v, Cancel disabled %v, progress %v shown %v",
			p.Run.Disabled(), p.Cancel.Disabled(), p.Progress.Value, p.Progress.Visible())
	}
	if p.Plan.Text != e.Plan || !p.Plan.Visible() || p.Status.Text != "run 2 of 4" || !p.Status.Visible() || p.Rerun.Visible() {
		t.Errorf("running: plan %q (shown %v), status %q (shown %v), Re-run shown %v",
			p.Plan.Text, p.Plan.Visible(), p.Status.Text, p.Status.Visible(), p.Rerun.Visible())
	}
	r := &experiment.Result{What: experiment.Threads, Points: []experiment.Point{{Label: "1", DecodeTokS: 9}, {Label: "2", DecodeTokS: 15}}}
	p.ShowView(session.View{Experiment: session.Experiment{Result: r, Plan: e.Plan, Saved: true}})
	if p.Run.Disabled() || !p.Cancel.Disabled() || p.Progress.Visible() || p.Plan.Visible() || p.Status.Visible() || !p.Rerun.Visible() {
		t.Errorf("done: Run disabled %v, Cancel enabled %v, progress shown %v, plan shown %v, status shown %v, Re-run shown %v",
			p.Run.Disabled(), !p.Cancel.Disabled(), p.Progress.Visible(), p.Plan.Visible(), p.Status.Visible(), p.Rerun.Visible())
	}
	p.ShowView(session.View{Experiment: session.Experiment{Result: r, Plan: "2 runs, about 20 s"}})
	if !p.Plan.Visible() || p.Plan.Text != "2 runs, about 20 s" || p.Rerun.Visible() {
		t.Errorf("another plan: %q shown %v, Re-run shown %v", p.Plan.Text, p.Plan.Visible(), p.Rerun.Visible())
	}
}

// The Timing tab draws every run of the View under its name ("run N"
// when it has none), newest first, and says where the bandwidth comes
// from, Re-measure off while the engine runs; an empty View empties it.
func TestTimingPanelShowsTheView(t *testing.T) {
	newTestApp(t)
	p := NewTimingPanel()
	b := perf.Bandwidth{BestGBs: 40, Threads: 2, When: time.Now()}
	v := session.View{Timings: []trace.Timing{{DecodeTokens: 4, DecodeSeconds: 1}, {DecodeTokens: 8, DecodeSeconds: 2}},
		Labels: []string{"", "run 2 · think on"}, Bandwidth: 40, Ceiling: perf.Ceiling{Best: b, Probes: []perf.Bandwidth{b}}}
	p.ShowView(v)
	var names []string
	for _, o := range p.list.Objects {
		if bars, ok := o.(*Bars); ok {
			names = append(names, bars.Row(0).Label)
		}
	}
	if p.Runs() != 2 || !slices.Equal(names, []string{"run 2 · think on", "run 1"}) {
		t.Errorf("%d runs named %q, want run 2 · think on, then run 1", p.Runs(), names)
	}
	if !strings.Contains(p.Ceiling.Text, "40.0 GB/s") || !strings.Contains(p.Ceiling.Text, "only probe") || p.Remeasure.Disabled() {
		t.Errorf("ceiling %q, Re-measure disabled %v", p.Ceiling.Text, p.Remeasure.Disabled())
	}
	v.Running = true
	p.ShowView(v)
	if !p.Remeasure.Disabled() {
		t.Error("Re-measure enabled while the engine runs")
	}
	p.ShowView(session.View{})
	if p.Runs() != 0 || p.Title.Text != tr("views.timing.none", nil) || !strings.Contains(p.Ceiling.Text, "not measured") {
		t.Errorf("empty View: %d runs, title %q, ceiling %q", p.Runs(), p.Title.Text, p.Ceiling.Text)
	}
}
