package app

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"loupe/engine"
	"loupe/engine/experiment"
	"loupe/engine/genmodel"
	"loupe/engine/perf"
	"loupe/kernels"
	"loupe/trace"
	"loupe/trace/stats"
	"loupe/views"
)

func experimentHarness(t *testing.T) *harness {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := genmodel.Write(dir, "tiny", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	was := experimentBandwidth
	experimentBandwidth = func(perf.WeightHolder, int, int, float64) (float64, error) { return 40, nil }
	t.Cleanup(func() { experimentBandwidth = was })
	h := engineHarness(t, dir)
	h.u.showTab("experiments")
	return h
}

// Two texts from the panel: a plan sentence first, then the figure, the
// sentence reading it, and PNG, SVG and CSV exports.
func TestExperimentTwoTexts(t *testing.T) {
	h := experimentHarness(t)
	u := h.u
	u.controls.Prompt.SetText("My cat is purple.")
	u.controls.MaxTokens.SetText("3")
	onUI(func() { u.experiments.Choose(experiment.Texts) })
	if !strings.Contains(u.experiments.Plan.Text, "about") {
		t.Fatalf("plan %q does not say how long", u.experiments.Plan.Text)
	}
	test.Tap(u.experiments.Run)
	h.wait()
	if u.st.Experiment.Result == nil || len(u.st.Experiment.Result.Points) != 2 || u.st.Running {
		t.Fatalf("result %+v, running %v", u.st.Experiment.Result, u.st.Running)
	}
	if n := u.backend.(*engine.Model).CachedTokens(); n != 0 {
		t.Errorf("the cache claims %d tokens of the experiment's text: the KV cache tab would show them as the run's", n)
	}
	if !strings.Contains(u.experiments.Reading.Text, "writing") || u.experiments.Figure() == nil {
		t.Fatalf("reading %q, figure %v", u.experiments.Reading.Text, u.experiments.Figure())
	}
	data, err := u.menus.render("experiments", "png")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(data)); err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if svg, err := u.menus.render("experiments", "svg"); err != nil || !bytes.Contains(svg, []byte("<svg")) {
		t.Fatalf("svg: %v", err)
	}
	csv, err := u.csvData("experiments")
	if err != nil || !bytes.HasPrefix(csv, []byte("what,value,prefill_tok_s")) || bytes.Count(csv, []byte("\n")) != 3 {
		t.Fatalf("csv %q, err %v", csv, err)
	}
}

// Cancel (or Esc) stops an experiment; the window is usable after.
func TestExperimentCancels(t *testing.T) {
	h := experimentHarness(t)
	u := h.u
	onUI(func() {
		u.experiments.Choose(experiment.Context)
		u.experimentRunner.runExperiment(experiment.Context)
		if !u.st.Running || u.experiments.Cancel.Disabled() {
			t.Errorf("running %v, Cancel disabled %v", u.st.Running, u.experiments.Cancel.Disabled())
		}
		test.Tap(u.experiments.Cancel)
	})
	h.wait()
	if u.st.Running || u.st.Experiment.Result == nil || !u.st.Experiment.Result.Cancelled {
		t.Fatalf("running %v, result %+v", u.st.Running, u.st.Experiment.Result)
	}
	if !strings.Contains(u.experiments.Status.Text, "Cancelled") || u.experiments.Run.Disabled() {
		t.Fatalf("status %q, Run disabled %v", u.experiments.Status.Text, u.experiments.Run.Disabled())
	}
	h.generate("My cat", 2)
	if u.st.LastRun == nil {
		t.Fatal("no generation after the cancelled experiment")
	}
}

// A saved result opens with its figure and reruns on the same model,
// compared with the saved figures.
func TestExperimentSaveOpenRerun(t *testing.T) {
	h := experimentHarness(t)
	u := h.u
	onUI(func() { u.experimentRunner.runExperiment(experiment.Threads) })
	h.wait()
	data, err := u.experimentRunner.experimentJSON()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "threads.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	onUI(func() { u.st.Experiment.Result = nil; u.experimentRunner.openExperiment(path) })
	if u.st.Experiment.Result == nil || u.experimentRunner.record == nil || !u.experiments.Rerun.Visible() {
		t.Fatalf("opened %v, record %v", u.st.Experiment.Result, u.experimentRunner.record)
	}
	// The rerun takes the recorded kernels and arithmetic (auto's too),
	// whatever another run left.
	arith := kernels.Arithmetic()
	defer kernels.Use(kernels.Current())
	kernels.SetLevel(kernels.Generic)
	onUI(u.experimentRunner.rerunExperiment)
	h.wait()
	if kernels.Arithmetic() != arith {
		t.Errorf("the rerun computes %q, the experiment %q (recorded kernels %q)", kernels.Arithmetic(), arith, u.experimentRunner.record.Kernels)
	}
	recorded, _ := kernels.ChoiceOf(u.experimentRunner.record.Kernels)
	for _, p := range u.st.Experiment.Result.Points {
		if p.Run != nil && p.Run.Settings.Kernels != recorded.Level().String() {
			t.Errorf("rerun point %v ran %s, recorded kernels %q", p.Value, p.Run.Settings.Kernels, u.experimentRunner.record.Kernels)
		}
	}
	if s := u.experiments.Status.Text; !strings.Contains(s, "Re-run done") || !strings.Contains(s, "same tokens") {
		t.Fatalf("status %q", s)
	}
}

// The quantisation experiment says what it will write, and where, and
// waits for a yes.
func TestExperimentQuantAsksFirst(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	h := experimentHarness(t)
	u := h.u
	onUI(func() { u.experimentRunner.runExperiment(experiment.Quant) })
	if u.st.Running {
		t.Fatal("the copies are being written before the user said yes")
	}
	if u.win.Canvas().Overlays().Top() == nil {
		t.Fatal("no dialog asks before writing the copies")
	}
}

// An experiment's runs join the run history, named after the experiment
// and the point, without replacing the run the stream shows; the
// quantisation experiment's become the compared pair, the original (A)
// against the smallest copy (B), and the Compare tab shows them although
// the stream's run has another prompt.
func TestExperimentRunsJoinHistory(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	h := experimentHarness(t)
	u := h.u
	h.generate("My cat is purple.", 3)
	mine := u.st.LastRun
	u.controls.MaxTokens.SetText("3")
	onUI(func() { u.experimentRunner.runExperiment(experiment.Texts) })
	h.wait()
	if n := len(u.st.Runs); n != 3 || u.st.Runs[1].Origin != "your prompt (two-texts experiment)" ||
		u.st.Runs[2].Origin != "The Gold-Bug (two-texts experiment)" || u.st.LastRun != mine {
		t.Fatalf("history of %d runs %v; the stream's run changed: %v", n, origins(u.st.Runs), u.st.LastRun != mine)
	}
	onUI(func() {
		opt := u.experimentRunner.experimentOptions(experiment.Quant)
		opt.PromptTokens, opt.DecodeTokens = 16, 4 // the copies' runs in seconds
		u.experimentRunner.startExperiment(u.backend.(*engine.Model), opt)
	})
	select {
	case <-h.idle:
	case <-time.After(2 * time.Minute):
		t.Fatal("the quantisation experiment did not end")
	}
	if u.st.Experiment.Result == nil || len(u.st.Experiment.Result.Points) != 3 {
		t.Fatalf("quant result %+v", u.st.Experiment.Result)
	}
	c := u.st
	if len(c.Runs) != 6 || c.A != 3 || c.B != 5 {
		t.Fatalf("history %v, pair %d, %d: want the original (run 4) and the Q4_K_M copy (run 6)", origins(c.Runs), c.A, c.B)
	}
	a, b := c.Runs[c.A], c.Runs[c.B]
	if a.Origin != "bf16 (quantisation experiment)" || b.Origin != "q4_k_m (quantisation experiment)" || !strings.Contains(c.Kind, "the model") {
		t.Errorf("pair %q vs %q, kind %q", a.Origin, b.Origin, c.Kind)
	}
	if l := views.RunLabel(5, b, 0); !strings.Contains(l, "q4_k_m (quantisation experiment)") {
		t.Errorf("history label %q does not name the experiment", l)
	}
	cmp, ok := u.compare.Comparison()
	if !ok || cmp.A != a || cmp.B != b || !cmp.Delta.HasA || cmp.Delta.Pos < stats.PromptLen(a) {
		t.Fatalf("Compare shows %v (A %p, B %p), at position %d", ok, cmp.A, cmp.B, cmp.Delta.Pos)
	}
	// ◀ ▶ step through A's written tokens although the stream shows another run.
	next := a.Steps[len(a.Steps)-1].Pos
	onUI(func() { u.compareStep(next) })
	if cmp, _ := u.compare.Comparison(); cmp.Delta.Pos != next {
		t.Errorf("after stepping to %d, Compare shows position %d", next, cmp.Delta.Pos)
	}
}

func origins(runs []*trace.Run) []string {
	var out []string
	for _, r := range runs {
		out = append(out, r.Origin)
	}
	return out
}

// The context experiment's runs join the history too, one per length,
// named after it, and two of them can be compared: their timings side by
// side (they keep no candidates: nothing to compare step by step).
func TestContextExperimentRunsJoinHistory(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	h := experimentHarness(t)
	u := h.u
	h.generate("My cat is purple.", 3)
	onUI(func() {
		opt := u.experimentRunner.experimentOptions(experiment.Context)
		opt.Values, opt.PromptTokens, opt.DecodeTokens = []string{"64", "256"}, 16, 3
		u.experimentRunner.startExperiment(u.backend.(*engine.Model), opt)
	})
	select {
	case <-h.idle:
	case <-time.After(2 * time.Minute):
		t.Fatal("the context experiment did not end")
	}
	if u.st.Experiment.Result == nil || len(u.st.Experiment.Result.Points) != 2 {
		t.Fatalf("context result %+v", u.st.Experiment.Result)
	}
	c := u.st
	if len(c.Runs) != 3 || c.Runs[1].Origin != "64 (context experiment)" || c.Runs[2].Origin != "256 (context experiment)" {
		t.Fatalf("history %v: want the prompt's run, then 64 and 256 (context experiment)", origins(c.Runs))
	}
	for _, r := range c.Runs[1:] {
		if r.Timing.DecodeTokens != 3 || r.Timing.DecodeSeconds <= 0 || stats.PromptLen(r) != 16 {
			t.Errorf("%s: timing %+v, %d tokens read", r.Origin, r.Timing, stats.PromptLen(r))
		}
	}
	onUI(func() { u.pickRuns(1, 2) })
	if cmp, ok := u.compare.Comparison(); !ok || cmp.A != c.Runs[1] || cmp.B != c.Runs[2] {
		t.Fatalf("Compare shows %v after picking the two lengths", ok)
	}
}
