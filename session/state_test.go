package session

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"loupe/trace"
)

func run(prompt string, s trace.Settings) *trace.Run { return &trace.Run{Prompt: prompt, Settings: s} }

func TestSelectionKeepsSourceBeforeQuery(t *testing.T) {
	s := New()
	s.Tokens = make([]trace.Token, 6)
	s.SelectQuery(4)
	s.SelectSource(2)
	if s.Query != 4 || s.Source != 2 {
		t.Fatalf("query %d source %d, want 4 and 2", s.Query, s.Source)
	}
	s.SelectSource(5) // after the query: the strongest instead
	if s.Source != -1 {
		t.Errorf("source %d after the query, want -1", s.Source)
	}
	s.SelectSource(3)
	s.SelectQuery(1) // the source is now after the query
	if s.Source != -1 || s.Follow {
		t.Errorf("source %d follow %v, want -1 and false", s.Source, s.Follow)
	}
	s.Running = true
	s.SelectQuery(5)
	if !s.Follow {
		t.Error("selecting the newest token while running should follow it")
	}
}

func TestHistoryDropsOldestAndPairFollows(t *testing.T) {
	s := New()
	runs := make([]*trace.Run, MaxHistory+3)
	for i := range runs {
		runs[i] = run("p", trace.Settings{Seed: uint64(i)})
	}
	for _, r := range runs[:MaxHistory] {
		s.Remember(r)
	}
	if !s.Pick(4, 7, "B is A") {
		t.Fatal("pick refused two runs of the history")
	}
	s.Remember(runs[MaxHistory]) // drops run 0: the pair moves down by one
	a, b, ok := s.Pair()
	if !ok || a != runs[4] || b != runs[7] || s.A != 3 || s.B != 6 {
		t.Fatalf("pair %d,%d (%v), want the same runs at 3,6", s.A, s.B, ok)
	}
	for _, r := range runs[MaxHistory+1:] {
		s.Remember(r)
	}
	if len(s.Runs) != MaxHistory || s.Runs[0] != runs[3] {
		t.Fatalf("%d runs, first %p, want %d from run 3", len(s.Runs), s.Runs[0], MaxHistory)
	}
	if a, b, _ := s.Pair(); a != runs[4] || b != runs[7] {
		t.Errorf("pair lost its runs")
	}
	for range 4 { // run 4 dropped: the pair ends
		s.Remember(run("q", trace.Settings{}))
	}
	if _, _, ok := s.Pair(); ok || s.A != -1 || s.B != -1 {
		t.Errorf("pair %d,%d still set after run A was dropped", s.A, s.B)
	}
	if s.Pick(0, MaxHistory, "") {
		t.Error("pick accepted an index past the history")
	}
}

func TestRerunBecomesB(t *testing.T) {
	s := New()
	a := run("My cat", trace.Settings{Seed: 1})
	s.Remember(a)
	s.Role = &Role{Base: a, Kind: "B is A with heads off", SourceA: 3}
	b := run("My cat", trace.Settings{Seed: 1, Ablate: []trace.Head{{Layer: 1, Head: 2}}})
	s.Remember(b)
	x, y, ok := s.Pair()
	if !ok || x != a || y != b || s.Kind != "B is A with heads off" || s.SourceA != 3 || s.Role != nil {
		t.Fatalf("pair %v %v %v kind %q sourceA %d role %v", ok, x == a, y == b, s.Kind, s.SourceA, s.Role)
	}
	if !s.IsB(b) || s.IsB(a) {
		t.Error("IsB: want b only")
	}
	// BaseRun of the ablated run is the plain one of the same prompt and seed.
	s.LastRun = b
	if r, err := s.BaseRun(); err != nil || r != a {
		t.Errorf("base run %v %v, want run A", r == a, err)
	}
	s.LastRun = run("other", trace.Settings{TopKExperts: 1})
	if r, _ := s.BaseRun(); r != s.LastRun {
		t.Error("no plain twin: the run shown is its own base")
	}
	s.LastRun = nil
	if _, err := s.BaseRun(); err == nil {
		t.Error("no run: want an error")
	}
}

func TestCounterfactual(t *testing.T) {
	off := []trace.Expert{{Layer: 0, Expert: 1}}
	if Counterfactual(trace.Settings{}) || !Counterfactual(trace.Settings{TopKExperts: 1}) ||
		!Counterfactual(trace.Settings{DisableExperts: off}) || !Counterfactual(trace.Settings{Ablate: []trace.Head{{}}}) {
		t.Error("counterfactual: want true exactly when heads or experts are changed")
	}
}

func TestToggleHead(t *testing.T) {
	s := New()
	h1, h2 := trace.Head{Layer: 18, Head: 1}, trace.Head{Layer: 2, Head: 0}
	s.ToggleHead(h1)
	s.ToggleHead(h2)
	s.ToggleHead(h1)
	if len(s.Heads) != 1 || s.Heads[0] != h2 {
		t.Errorf("heads %v, want [%v]", s.Heads, h2)
	}
}

func TestBranchPos(t *testing.T) {
	a := &trace.Run{Prompt: "p", Steps: []trace.Step{{Pos: 4}, {Pos: 5}, {Pos: 6}}}
	b := &trace.Run{Prompt: "p", Steps: a.Steps, Settings: trace.Settings{Branch: &trace.Branch{At: 1, Token: 9}}}
	if pos, ok := BranchPos(a, b); !ok || pos != 5 {
		t.Errorf("branch at %d (%v), want 5", pos, ok)
	}
	if _, ok := BranchPos(a, a); ok {
		t.Error("no branch: want false")
	}
	if _, ok := BranchPos(a, &trace.Run{Prompt: "q", Settings: b.Settings}); ok {
		t.Error("another prompt: want false")
	}
}

func TestViewAddsLiveTimingWithoutTouchingHistory(t *testing.T) {
	s := New()
	s.Timings = make([]trace.Timing, 2, 8)
	s.Tokens = make([]trace.Token, 3)
	s.Query = 7 // past the tokens: nothing selected
	s.Running = true
	s.LastRun = run("p", trace.Settings{})
	s.Live = trace.Timing{PrefillTokens: 3}
	v := s.View()
	if len(v.Timings) != 3 || v.Timings[2].PrefillTokens != 3 || v.Run != nil || v.Selected() {
		t.Fatalf("view timings %d, run %v, selected %v", len(v.Timings), v.Run, v.Selected())
	}
	s.Timings = append(s.Timings, trace.Timing{PrefillTokens: 9}) // must not see the live one
	if s.Timings[2].PrefillTokens != 9 || v.Timings[2].PrefillTokens != 3 {
		t.Error("the view's live timing shares the history's array")
	}
	s.Running = false
	if v := s.View(); v.Run != s.LastRun || len(v.Timings) != 3 {
		t.Errorf("finished: run %v, %d timings", v.Run, len(v.Timings))
	}
}

// TestNoFyne keeps the session headless: the window's rules are tested
// without a window.
func TestNoFyne(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "fyne.io/") || strings.HasPrefix(p, "gonum.org/v1/plot") || p == "loupe/views" || p == "loupe/viz" || p == "loupe/app" {
			t.Errorf("session imports %s", p)
		}
	}
}

// The recomputed position counts only for the run and position asked,
// and KV rows only for their layer and K/V head.
func TestInspectedMatchesItsRun(t *testing.T) {
	a, b := run("p", trace.Settings{}), run("p", trace.Settings{})
	in := Inspected{Run: a, Pos: 4, Layer: 2, KVHead: 1, Result: &trace.Inspection{Pos: 4},
		Rows: trace.KVRows{Keys: [][]float32{{1}}}}
	if !in.Has(a, 4) || in.Has(b, 4) || in.Has(a, 3) {
		t.Error("Has: want run a at position 4 only")
	}
	if !in.HasRows(a, 2, 1) || in.HasRows(a, 2, 0) || in.HasRows(b, 2, 1) {
		t.Error("HasRows: want run a, layer 2, K/V head 1 only")
	}
	in.Err = errTest
	if !in.Failed(a, 4) || in.Failed(a, 5) || (Inspected{Run: a, Pos: 4}).Failed(a, 4) {
		t.Error("Failed: want an error of run a at position 4 only")
	}
}

var errTest = errors.New("test")
