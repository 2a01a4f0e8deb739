package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"loupe/assets"
	"loupe/engine"
	"loupe/engine/perf"
	"loupe/kernels"
	"loupe/trace"
	"loupe/trace/stats"
	"loupe/views"
	"loupe/viz"
)

func TestMain(m *testing.M) {
	measureBandwidth = nil // seconds on every core: not in unit tests
	bandwidthCeiling = func() (perf.Ceiling, bool) { return perf.Ceiling{}, false }
	inspectJobs = false // on only in the tests of the Inspect tabs (inside_test.go)
	serialDo = new(sync.Mutex)
	os.Exit(m.Run())
}

// onUI runs f as the real driver would run a UI callback: one at a time
// with the app's own (u.do's, serialised by serialDo), and waits for it.
// Fyne's test driver would run it at once on the test's goroutine, beside
// a worker's callback: two goroutines shaping text at once panic inside
// go-text and leave its font lock held (seen: TestWindowLifetime hung).
func onUI(f func()) {
	fyne.DoAndWait(func() {
		serialDo.Lock()
		defer serialDo.Unlock()
		f()
	})
}

// harness is a window on Fyne's headless driver with a fake model.
type harness struct {
	t    *testing.T
	u    *UI
	fake *fakeBackend
	idle chan struct{}
	shot chan struct{} // a --screenshot was written
}

func newHarness(t *testing.T, opt Options) *harness {
	t.Helper()
	return newHarnessWith(t, opt, nil)
}

// newHarnessWith uses load instead of the fake when it is not nil.
// engineHarness is a harness on the real engine with the model in dir and
// Inspect jobs on; at the end no job outlives the test and the model is
// closed.
func engineHarness(t *testing.T, dir string) *harness {
	t.Helper()
	inspectJobs = true
	h := newHarnessWith(t, Options{Model: dir}, loadEngine)
	t.Cleanup(func() {
		h.u.insideJobs.waitInspect()
		h.u.backend.Close()
		inspectJobs = false
	})
	return h
}

func newHarnessWith(t *testing.T, opt Options, real Loader) *harness {
	t.Helper()
	a := test.NewTempApp(t)
	a.Settings().SetTheme(newTheme(""))
	w := a.NewWindow("Loupe")
	h := &harness{t: t, fake: newFake(), idle: make(chan struct{}, 16), shot: make(chan struct{}, 1)}
	load := func(path string, progress func(float64, string)) (Backend, error) {
		if strings.Contains(path, "bad") {
			return nil, errors.New("config.json: no such file")
		}
		progress(0.5, "weights")
		return h.fake, nil
	}
	if opt.Model == "" {
		opt.Model = "/models/fake"
	}
	opt.Threads = -1
	if real != nil {
		load = real
	}
	h.u = newUI(a, w, opt, load)
	t.Cleanup(h.settle)
	h.u.onIdle = func() { h.idle <- struct{}{} }
	h.u.onShot = func() { h.shot <- struct{}{} }
	w.Resize(fyne.NewSize(1400, 900))
	w.Show()
	h.u.start()
	h.wait()
	return h
}

// settle cancels what the test left running and waits for the window's
// goroutines to end (10 s at most): one still drawing (a probe's result,
// a run's last redraw) would measure text beside the next test's window,
// and Fyne's text cache is not safe for two goroutines.
func (h *harness) settle() {
	h.u.closeAll()
	done := make(chan struct{})
	go func() { h.u.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		h.t.Log("a window goroutine outlived the test by 10 s")
	}
}

// wait blocks until the UI reports that a load or generation ended.
func (h *harness) wait() {
	h.t.Helper()
	select {
	case <-h.idle:
	case <-time.After(10 * time.Second):
		h.t.Fatal("timed out waiting for the UI to become idle")
	}
}

func (h *harness) generate(prompt string, maxTokens int) {
	h.t.Helper()
	h.u.controls.Prompt.SetText(prompt)
	h.u.controls.MaxTokens.SetText(fmt.Sprint(maxTokens))
	test.Tap(h.u.controls.Generate)
	h.wait()
}

func TestLoadShowsModel(t *testing.T) {
	h := newHarness(t, Options{})
	if h.u.backend != h.fake {
		t.Fatal("the fake model was not loaded")
	}
	rows := h.u.model.Rows()
	if len(rows) == 0 || !strings.Contains(rows[2][1], "4 layers · 8 query heads · 2 K/V heads") {
		t.Fatalf("model panel rows: %v", rows)
	}
	if got := h.u.app.Preferences().StringList(prefRecentModels); len(got) != 1 || got[0] != "/models/fake" {
		t.Fatalf("recent models %v, want [/models/fake]", got)
	}
}

func TestGenerateFillsStreamAndPanels(t *testing.T) {
	h := newHarness(t, Options{})
	test.Type(h.u.controls.Prompt, "My cat is purple . But my") // 7 prompt tokens
	h.u.controls.MaxTokens.SetText("5")
	test.Tap(h.u.controls.Generate)
	h.wait()
	toks := h.u.stream.Tokens()
	if len(toks) != 12 {
		t.Fatalf("stream has %d tokens, want 7 prompt + 5 generated", len(toks))
	}
	for i, tok := range toks {
		if tok.Generated != (i >= 7) || tok.Pos != i {
			t.Fatalf("token %d: %+v", i, tok)
		}
	}
	// After the run the last prompt token is selected, as in the article:
	// its attention (0.5 on the first token, 0.5 on the previous one), its
	// strongest source outlined, and the candidates of the first word.
	if h.u.stream.Selected() != 6 || !h.u.attn.HasData() || h.u.attn.Query() != 6 {
		t.Fatalf("selected %d, attention shown %v, want the last prompt token 6", h.u.stream.Selected(), h.u.attn.HasData())
	}
	want := stats.StrongestSource(h.fake.attention(6))
	if want != 5 || h.u.attn.Source() != want || h.u.stream.Source() != want {
		t.Errorf("strongest source %d (outlined %d), want %d (the previous token)", h.u.attn.Source(), h.u.stream.Source(), want)
	}
	if !strings.Contains(h.u.attn.Sink.Text, "50.0 %") {
		t.Errorf("sink line %q, want 50.0 %%", h.u.attn.Sink.Text)
	}
	if s, ok := h.u.next.Step(); !ok || s.Pos != 7 {
		t.Errorf("next-token step %+v %v, want position 7", s, ok)
	}
	if h.u.timing.Runs() != 1 || h.u.st.LastRun == nil || h.u.st.LastRun.StopReason != "max_tokens" {
		t.Errorf("timing runs %d, last run %+v", h.u.timing.Runs(), h.u.st.LastRun)
	}
	if !h.u.controls.Stop.Disabled() || h.u.controls.Generate.Disabled() {
		t.Error("buttons not back to idle")
	}
}

// TestSelectionDuringAndAfterRun: while the model writes, the selection
// follows the newest token; a token the user clicks meanwhile stays
// selected when the run ends, with the source the user chose.
func TestSelectionDuringAndAfterRun(t *testing.T) {
	h := newHarness(t, Options{})
	selected, newest := -1, -1
	h.fake.onStep = func(k int) {
		switch k {
		case 3: // tokens 7, 8 and 9 are written, and reach the window in batches
			for end := time.Now().Add(5 * time.Second); newest < 9 && time.Now().Before(end); time.Sleep(time.Millisecond) {
				onUI(func() { selected, newest = h.u.stream.Selected(), len(h.u.st.Tokens)-1 })
			}
			onUI(func() { h.u.stream.Select(3); h.u.stream.Choose(1) })
		}
	}
	h.generate("My cat is purple . But my", 6) // 7 prompt tokens
	if newest != 9 || selected != newest {
		t.Errorf("selected %d during the run, want the newest token %d", selected, newest)
	}
	if h.u.stream.Selected() != 3 || h.u.attn.Query() != 3 {
		t.Errorf("selected %d (grid %d) after the run, want 3, the user's click", h.u.stream.Selected(), h.u.attn.Query())
	}
	if h.u.attn.Source() != 1 || h.u.stream.Source() != 1 {
		t.Errorf("source %d (outlined %d), want 1, the user's choice", h.u.attn.Source(), h.u.stream.Source())
	}
}

func TestClickTokenChangesPanels(t *testing.T) {
	h := newHarness(t, Options{})
	h.generate("My cat is purple . But my", 3)
	h.u.stream.Select(3) // a prompt token: short prompts capture every position
	if !h.u.attn.HasData() || h.u.attn.Source() != 2 {
		t.Fatalf("query 3: data %v source %d, want source 2", h.u.attn.HasData(), h.u.attn.Source())
	}
	if !strings.Contains(h.u.attn.Title.Text, "position 3") {
		t.Errorf("title %q", h.u.attn.Title.Text)
	}
	if _, ok := h.u.next.Step(); ok {
		t.Error("a mid-prompt token has no candidates")
	}
	h.u.stream.Select(6) // the last prompt token: the first step predicts after it
	if s, ok := h.u.next.Step(); !ok || s.Pos != 7 {
		t.Errorf("last prompt token: step %+v %v, want position 7", s, ok)
	}
	h.u.typedKey(&fyne.KeyEvent{Name: fyne.KeyLeft}) // ← moves the selection
	if h.u.st.Query != 5 || h.u.stream.Selected() != 5 {
		t.Errorf("← from 6: query %d", h.u.st.Query)
	}
	h.u.stream.Choose(1) // right click: the source of the grid
	if h.u.attn.Source() != 1 {
		t.Errorf("source %d after choosing 1", h.u.attn.Source())
	}
	h.u.attn.OpenHead(2, 5)
	if !strings.Contains(h.u.attn.HeadTitle.Text, "layer 3, head 6 (shares K/V head 2)") { // counted from 1
		t.Errorf("head title %q", h.u.attn.HeadTitle.Text)
	}
}

func TestLongPromptWithoutAttentionOffersCaptured(t *testing.T) {
	h := newHarness(t, Options{})
	prompt := strings.Repeat("word ", 300) // > 256 tokens: only the last prompt token
	h.generate(prompt, 2)
	h.u.stream.Select(10)
	if h.u.attn.HasData() || !strings.Contains(h.u.attn.Title.Text, "No attention was captured") {
		t.Fatalf("title %q", h.u.attn.Title.Text)
	}
	h.u.stream.Select(299)
	if !h.u.attn.HasData() {
		t.Error("the last prompt token's attention is captured")
	}
	if h.u.stream.Rows() < 10 {
		t.Errorf("300 tokens wrapped into %d rows", h.u.stream.Rows())
	}
}

func TestExportFigures(t *testing.T) {
	h := newHarness(t, Options{})
	h.generate("My cat is purple . But my", 3)
	if _, err := h.u.menus.capturePanel("model"); err == nil {
		t.Error("the hidden model panel was captured")
	}
	h.u.tabs.SelectIndex(3)
	if _, err := h.u.menus.capturePanel("model"); err != nil {
		t.Error(err)
	}
	for _, panel := range []string{"attention", "head", "next-token", "timing", "model"} {
		data, err := h.u.menus.render(panel, "png")
		if err != nil {
			t.Fatalf("%s png: %v", panel, err)
		}
		if _, err := png.Decode(bytes.NewReader(data)); err != nil {
			t.Errorf("%s: not a PNG: %v", panel, err)
		}
	}
	svg, err := h.u.menus.render("attention", "svg")
	if err != nil || !bytes.Contains(svg, []byte("<svg")) {
		t.Errorf("attention svg: %v, %.60q", err, svg)
	}
	if svg, err := h.u.menus.render("model", "svg"); err != nil || !bytes.Contains(svg, []byte("<svg")) {
		t.Errorf("model svg: %v", err)
	}
}

func TestMLPPanel(t *testing.T) {
	h := newHarness(t, Options{})
	h.generate("My cat is purple . But my", 3)
	h.u.showTab("mlp")
	h.u.stream.Select(4)
	m, ok := h.u.mlp.Shown()
	if !ok || m.Pos != 4 || m.Layer != 2 || len(m.Values) != 256 {
		t.Fatalf("MLP shown: %v layer %d pos %d", ok, m.Layer, m.Pos)
	}
	h.u.mlp.Layer.SetSelectedIndex(0)
	if m, _ := h.u.mlp.Shown(); m.Layer != 0 {
		t.Errorf("layer select: shown layer %d", m.Layer)
	}
	if data, err := h.u.menus.render("mlp", "svg"); err != nil || !bytes.Contains(data, []byte("<svg")) {
		t.Errorf("mlp svg: %v", err)
	}
	h.u.stream.Select(9) // the last generated token is never read back
	if _, ok := h.u.mlp.Shown(); ok || !strings.Contains(h.u.mlp.Title.Text, "No MLP values at position 9") {
		t.Errorf("title %q", h.u.mlp.Title.Text)
	}
}

func TestMLPCapturesBudget(t *testing.T) {
	// Qwen2.5-1.5B: 1,003,520 bytes a position, 8 positions in 8 MiB:
	// the last prompt token then 7 generated ones.
	c := mlpCaptures(28, 8960, 17, 100)
	if len(c) != 8*28 || c[0].Pos != 16 || c[len(c)-1].Pos != 23 {
		t.Errorf("%d captures, first %+v last %+v", len(c), c[0], c[len(c)-1])
	}
	// The demo model's size: every position that is read.
	c = mlpCaptures(4, 768, 10, 5)
	if len(c) != 14*4 {
		t.Errorf("small model: %d captures, want 14 positions × 4 layers", len(c))
	}
}

// TestRealDemoModel drives the window on the engine and the embedded demo
// model: the stream, the panels and the run agree with what the engine
// recorded.
func TestRealDemoModel(t *testing.T) {
	dir, err := assets.DemoModelDir()
	if err != nil {
		t.Skip("no demo model:", err)
	}
	h := newHarnessWith(t, Options{Model: dir}, loadEngine)
	if h.u.backend == nil {
		t.Fatalf("demo model not loaded: %s", h.u.controls.Status.Text)
	}
	defer h.u.backend.Close()
	h.generate("ROMEO:\nBut soft, what light", 6)
	run := h.u.st.LastRun
	if run == nil || run.Timing.DecodeTokens == 0 {
		t.Fatalf("no run: %s", h.u.controls.Status.Text)
	}
	if got, want := len(h.u.stream.Tokens()), len(run.Tokens); got != want {
		t.Errorf("stream %d tokens, run %d", got, want)
	}
	prompt := firstGenerated(run.Tokens)
	h.u.stream.Select(prompt - 1) // the last prompt token: attention and the first step
	if !h.u.attn.HasData() {
		t.Errorf("no attention for the last prompt token: %s", h.u.attn.Title.Text)
	}
	if s, ok := h.u.next.Step(); !ok || s.Pos != prompt || s.Chosen.ID != run.Tokens[prompt].ID {
		t.Errorf("next-token step %+v %v, want the choice of position %d", s.Chosen, ok, prompt)
	}
	if len(run.MLP) == 0 || len(run.MLP[0].Values) != h.u.st.Info.Intermediate {
		t.Errorf("%d MLP captures", len(run.MLP))
	}
	// Sampling settings reach the engine, and a seed repeats a run.
	h.u.controls.Mode.SetValue(views.Sampling)
	h.generate("ROMEO:\nBut soft, what light", 6)
	first := h.u.st.LastRun
	h.generate("ROMEO:\nBut soft, what light", 6)
	if first == nil || first.Settings.Temperature != 0.7 || first.Settings.TopK != 20 {
		t.Fatalf("sampled run settings %+v", first)
	}
	for i := range first.Tokens {
		if first.Tokens[i].ID != h.u.st.LastRun.Tokens[i].ID {
			t.Fatalf("seed 1 gave two different runs at position %d", i)
		}
	}
}

func TestStopCancels(t *testing.T) {
	h := newHarness(t, Options{})
	h.u.showTab("timing") // during a run only the tab on screen is drawn
	// Stop as a user would, on the UI goroutine, after 5 tokens.
	runsDuring := -1
	h.fake.onStep = func(k int) {
		if k == 5 {
			runsDuring = h.u.timing.Runs() // the live bar of this run
			onUI(h.u.stop)
		}
	}
	h.u.controls.Prompt.SetText("My cat")
	h.u.controls.MaxTokens.SetText("1000")
	test.Tap(h.u.controls.Generate)
	h.wait()
	if h.u.st.LastRun == nil || h.u.st.LastRun.StopReason != "cancelled" {
		t.Fatalf("run %+v, want cancelled", h.u.st.LastRun)
	}
	if n := h.u.st.LastRun.Timing.DecodeTokens; n != 5 {
		t.Errorf("%d tokens before the stop, want 5: the engine answers within a token", n)
	}
	if runsDuring != 1 || h.u.timing.Runs() != 1 {
		t.Errorf("timing bars: %d during the run, %d after, want 1 and 1", runsDuring, h.u.timing.Runs())
	}
}

func TestCloseDuringGeneration(t *testing.T) {
	h := newHarness(t, Options{})
	h.fake.delay = 20 * time.Millisecond
	h.u.controls.Prompt.SetText("My cat")
	h.u.controls.MaxTokens.SetText("1000")
	writing := make(chan struct{})
	h.fake.onStep = func(k int) {
		if k == 3 {
			close(writing) // the generation is under way: close the window now
		}
	}
	test.Tap(h.u.controls.Generate)
	select {
	case <-writing:
	case <-time.After(10 * time.Second):
		t.Fatal("the generation never reached its 4th token")
	}
	start := time.Now()
	h.u.shutdown() // what Main does once the window is closed
	if d := time.Since(start); d > time.Second {
		t.Errorf("shutdown took %v", d)
	}
	h.fake.mu.Lock()
	closed := h.fake.closed
	h.fake.mu.Unlock()
	if !closed {
		t.Error("the model was not closed")
	}
}

// fakeCeiling makes the bandwidth cache an in-memory list of probes.
func fakeCeiling(t *testing.T, probes ...perf.Bandwidth) *[]perf.Bandwidth {
	list := &probes
	old := bandwidthCeiling
	bandwidthCeiling = func() (perf.Ceiling, bool) {
		if len(*list) == 0 {
			return perf.Ceiling{}, false
		}
		c := perf.Ceiling{Best: (*list)[0], Probes: *list}
		for _, p := range *list {
			if p.BestGBs > c.Best.BestGBs {
				c.Best = p
			}
		}
		return c, true
	}
	t.Cleanup(func() { bandwidthCeiling = old })
	return list
}

// TestBandwidthProbeAfterFirstRun: a window started to run at once runs
// first and probes the bandwidth after (the run neither waits for the
// probe nor holds its buffer beside the model); a generation asked
// for during a probe waits for it; a scripted window (--quit) never probes.
func TestBandwidthProbeAfterFirstRun(t *testing.T) {
	release := make(chan struct{})
	probes := fakeCeiling(t)
	started := make(chan bool, 1)
	measureBandwidth = func(perf.WeightHolder) (perf.Bandwidth, error) {
		started <- true
		<-release
		b := perf.Bandwidth{BestGBs: 50, Threads: 2, When: time.Now()}
		*probes = append([]perf.Bandwidth{b}, *probes...)
		return b, nil
	}
	defer func() { measureBandwidth = nil }()
	h := newHarness(t, Options{Prompt: "My cat is purple", Generate: true, MaxTokens: 3})
	waitFor(t, func() bool { return h.u.st.LastRun != nil || h.u.st.Measuring })
	if h.u.st.LastRun == nil {
		t.Fatal("the first run waited for the bandwidth probe")
	}
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("no probe after the first run")
	}
	h.u.generate()
	if h.u.st.Running || !strings.Contains(h.u.controls.Status.Text, "Measuring") {
		t.Fatalf("a generation started during the measurement (status %q)", h.u.controls.Status.Text)
	}
	first := h.u.st.LastRun
	close(release)
	waitFor(t, func() bool { return !h.u.st.Measuring && h.u.st.Yardstick() == 50 })
	// The generation asked for during the probe runs after it: the next
	// window is made once it is done, not beside it (go-text's shaper is
	// not safe for two goroutines at once).
	waitFor(t, func() bool { return h.u.st.LastRun != first && !h.u.st.Running })
	if got := h.u.timing.Ceiling.Text; !strings.Contains(got, "50.0 GB/s") || !strings.Contains(got, "from its only probe") {
		t.Errorf("ceiling line %q", got)
	}

	fakeCeiling(t)
	probed := false
	measureBandwidth = func(perf.WeightHolder) (perf.Bandwidth, error) { probed = true; return perf.Bandwidth{}, nil }
	q := newHarness(t, Options{Prompt: "My cat is purple", Generate: true, MaxTokens: 2, Quit: true})
	waitFor(t, func() bool { return q.u.st.LastRun != nil })
	if probed || q.u.st.Measuring {
		t.Error("a scripted window (--quit) probed the bandwidth")
	}
}

// TestBandwidthCeiling: the panel says how old the figure is and whether
// it was taken under load, a weak figure is probed again at start, a
// strong one is not, and Re-measure probes while the engine is idle.
func TestBandwidthCeiling(t *testing.T) {
	busy, now := 1.4, time.Now()
	probes := fakeCeiling(t,
		perf.Bandwidth{BestGBs: 30, Threads: 2, When: now.Add(-time.Hour)},
		perf.Bandwidth{BestGBs: 31, Threads: 2, When: now.Add(-2 * time.Hour)},
		perf.Bandwidth{BestGBs: 32, Threads: 2, When: now.Add(-3 * time.Hour)})
	measured := 0
	measureBandwidth = func(perf.WeightHolder) (perf.Bandwidth, error) {
		measured++
		b := perf.Bandwidth{BestGBs: 40, Threads: 2, When: time.Now()}
		*probes = append([]perf.Bandwidth{b}, *probes...)
		return b, nil
	}
	defer func() { measureBandwidth = nil }()
	h := newHarness(t, Options{})
	if measured != 0 || h.u.st.Yardstick() != 32 {
		t.Fatalf("three fresh idle probes: measured %d times, figure %v", measured, h.u.st.Yardstick())
	}
	if got := h.u.timing.Ceiling.Text; !strings.Contains(got, "32.0 GB/s") || !strings.Contains(got, "best of 3 probes") ||
		strings.Contains(got, "old") || strings.Contains(got, "busy") {
		t.Errorf("ceiling line %q", got)
	}
	test.Tap(h.u.timing.Remeasure)
	waitFor(t, func() bool { return !h.u.st.Measuring && h.u.st.Yardstick() == 40 })
	if measured != 1 || !strings.Contains(h.u.timing.Ceiling.Text, "best of 4 probes") {
		t.Errorf("after Re-measure: measured %d, line %q", measured, h.u.timing.Ceiling.Text)
	}
	old := perf.Bandwidth{BestGBs: 45, Threads: 2, When: now.Add(-10 * 24 * time.Hour), OthersBusy: &busy}
	c := perf.Ceiling{Best: old, Probes: []perf.Bandwidth{old}}
	got := views.CeilingText(c, true, false, now)
	if !strings.Contains(got, "10 days old") || !strings.Contains(got, "1.4 cores busy") {
		t.Errorf("old figure under load: %q", got)
	}
	if got := views.CeilingText(perf.Ceiling{}, false, true, now); !strings.Contains(got, "measuring") {
		t.Errorf("first probe: %q", got)
	}
}

func TestBadModelKeepsPrevious(t *testing.T) {
	h := newHarness(t, Options{})
	h.u.openModel("/models/bad")
	h.wait()
	if h.u.backend != h.fake {
		t.Fatal("the previous model was dropped")
	}
	if !strings.Contains(h.u.controls.Status.Text, "Could not open /models/bad") {
		t.Errorf("status %q", h.u.controls.Status.Text)
	}
	h.generate("My cat", 2)
	if len(h.u.stream.Tokens()) != 4 {
		t.Errorf("generation after a failed load gave %d tokens", len(h.u.stream.Tokens()))
	}
}

func TestInvalidSettingRefused(t *testing.T) {
	h := newHarness(t, Options{})
	h.u.controls.Prompt.SetText("My cat")
	h.u.controls.MaxTokens.SetText("lots")
	test.Tap(h.u.controls.Generate)
	if h.u.st.Running || len(h.u.stream.Tokens()) != 0 {
		t.Fatal("generation started with max tokens = lots")
	}
}

func TestScreenshotFlag(t *testing.T) {
	out := filepath.Join(t.TempDir(), "app.png")
	h := newHarness(t, Options{Prompt: "My cat is purple . But my friends tell me there is no such thing as a",
		Generate: true, MaxTokens: 8, Screenshot: out, Quit: true})
	// newHarness waited for the generation (--generate starts it on load);
	// the screenshot follows once the window has settled.
	select {
	case <-h.shot:
	case <-time.After(10 * time.Second):
		t.Fatal("no screenshot written")
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() < 1000 || b.Dy() < 600 {
		t.Errorf("screenshot %v", b)
	}
	if h.u.exitCode != 0 {
		t.Errorf("exit code %d", h.u.exitCode)
	}
	if dst := os.Getenv("LOUPE_SHOT"); dst != "" { // to look at the headless window
		data, _ := os.ReadFile(out)
		os.WriteFile(dst, data, 0o644)
	}
}

// --timing-json writes the run's rates and what the workers did during
// decode only: the record is reset at the end of prefill, so the second
// run's counts are its own 5 steps, not the 8 + 5 of both runs.
func TestTimingJSONRecordsDecodeWorkers(t *testing.T) {
	out := filepath.Join(t.TempDir(), "timing.json")
	h := newHarness(t, Options{TimingJSON: out})
	h.generate("the cat sat", 8)
	h.generate("the cat sat", 5)
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got windowTiming
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Decode.Tokens != 5 || len(got.StepSeconds) != 5 {
		t.Errorf("decode %+v, %d steps: want the last run's 5", got.Decode, len(got.StepSeconds))
	}
	if got.Pool == nil || got.Pool.Calls != 5 || got.Pool.CallerWait != 5*time.Millisecond {
		t.Errorf("pool %+v: want the last run's decode (5 calls, 5 ms)", got.Pool)
	}
}

func TestParseFlags(t *testing.T) {
	o, err := ParseFlags([]string{"--model", "m", "--prompt", "hi", "--generate", "--max-tokens", "20",
		"--screenshot", "s.png", "--quit", "--kernels", "generic", "--threads", "2", "--tab", "timing"}, &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	want := Options{Model: "m", Prompt: "hi", Generate: true, MaxTokens: 20, Screenshot: "s.png", Quit: true, Kernels: "generic", Threads: 2, Tab: "timing"}
	if o != want {
		t.Errorf("got %+v, want %+v", o, want)
	}
	for _, bad := range [][]string{{"--max-tokens", "-1"}, {"stray"}, {"--nope"}} {
		if _, err := ParseFlags(bad, &strings.Builder{}); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	// Values the window ignored silently are refused, saying what is valid.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--tab", "nonsense"}, `--tab "nonsense": use attention, next-token`},
		{[]string{"--threads", "-2"}, "--threads -2: must be 0 (one per physical core) or more"},
		{[]string{"--threads", "-1"}, "--threads -1: must be 0"},
		{[]string{"--dialog", "open"}, `--dialog "open": use models or get-model`},
		{[]string{"--kernels", "fast"}, `--kernels "fast": use one of auto, exact`},
	} {
		_, err := ParseFlags(c.args, &strings.Builder{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
	// Every panel --tab names opens a tab of the window, and every tab has a name.
	h := newHarness(t, Options{})
	var names []string
	for _, it := range h.u.tabs.Items {
		for _, p := range h.u.panels {
			if p.Object() == it.Content && p.Tab() == it.Text {
				names = append(names, p.Name())
			}
		}
	}
	tabs := slices.DeleteFunc(slices.Clone(tabNames), func(n string) bool { return n == "experts" || n == "deltanet" }) // an MoE or a hybrid model's tab
	if !slices.Equal(slices.Sorted(slices.Values(names)), slices.Sorted(slices.Values(tabs))) {
		t.Errorf("tabs %v, --tab names %v", names, tabNames)
	}
}

// TestNoDisplay: without a display the window says so in one line and
// points to the headless commands, instead of a toolkit panic.
func TestNoDisplay(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	if runtime.GOOS == "linux" && !noDisplay() {
		t.Error("no DISPLAY nor WAYLAND_DISPLAY, yet a display is assumed")
	}
	t.Setenv("DISPLAY", ":0")
	if noDisplay() {
		t.Error("DISPLAY set, yet no display is assumed")
	}
	if !strings.Contains(noDisplayMessage, "no display: the window needs one; `loupe run …` works without") {
		t.Errorf("message %q", noDisplayMessage)
	}
	if !isNoDisplayPanic("NotInitialized: The GLFW library is not initialized") {
		t.Error("GLFW's panic without a display is not recognised")
	}
}

func TestKernelLabels(t *testing.T) {
	opts := kernelOptions()
	if opts[0] != "auto" || opts[len(opts)-1] != "generic" {
		t.Errorf("options %v", opts)
	}
	for _, s := range []string{"AVX-512-BF16", "avx512bf16", "AVX2", "avx2", "generic", "auto"} {
		if _, ok := parseKernelLabel(s); !ok {
			t.Errorf("%q not parsed", s)
		}
	}
	if _, ok := parseKernelLabel("sse9"); ok {
		t.Error("sse9 parsed")
	}
}

func TestKernelsFlagAppliedAtGeneration(t *testing.T) {
	defer kernels.SetLevel(kernels.Best())
	h := newHarness(t, Options{Kernels: "generic"})
	if h.u.controls.Kernels.Selected != "generic" {
		t.Fatalf("kernel select %q", h.u.controls.Kernels.Selected)
	}
	h.generate("My cat", 2)
	if kernels.Active() != kernels.Generic || h.u.st.LastRun.Settings.Kernels != "generic" {
		t.Errorf("active %v, run settings %q", kernels.Active(), h.u.st.LastRun.Settings.Kernels)
	}
}

// TestExactArithmeticOption: the menu's "Exact arithmetic (fp32)" (and
// --kernels exact) runs the fastest fp32 level with SetExact on, and the
// run, the Timing line and the Model panel say so; "auto" turns it off.
func TestExactArithmeticOption(t *testing.T) {
	defer func(l kernels.Level, e bool) { kernels.SetLevel(l); kernels.SetExact(e) }(kernels.Active(), kernels.Exact())
	if opts := kernelOptions(); len(opts) < 2 || opts[1] != exactLabel {
		t.Fatalf("options %v: the exact arithmetic second", opts)
	}
	h := newHarness(t, Options{Kernels: "exact"})
	if h.u.controls.Kernels.Selected != exactLabel {
		t.Fatalf("kernel select %q", h.u.controls.Kernels.Selected)
	}
	h.generate("My cat", 2)
	s := h.u.st.LastRun.Settings
	if !kernels.Exact() || kernels.Active() != kernels.BestExact() || s.Kernels != kernels.BestExact().String() || s.Arithmetic != "fp32" {
		t.Errorf("exact: active %v exact %v, run settings %q %q", kernels.Active(), kernels.Exact(), s.Kernels, s.Arithmetic)
	}
	if line := kernelLine(); !strings.Contains(line, "fp32") {
		t.Errorf("model panel's kernel line %q does not name the arithmetic", line)
	}
	// On the engine the run's Timing carries them to the Timing bars.
	dir, err := assets.DemoModelDir()
	if err != nil {
		t.Skip("no demo model:", err)
	}
	e := engineHarness(t, dir)
	for _, c := range []struct{ label, arith string }{{exactLabel, "fp32"}, {"auto", kernels.Arithmetic()}, {"AVX-512-BF16", "bf16"}} {
		if !slices.Contains(e.u.controls.Kernels.Options, c.label) {
			continue
		}
		e.u.controls.Kernels.SetSelected(c.label)
		e.generate("My cat", 2)
		tm := e.u.st.LastRun.Timing
		if tm.Kernels != kernels.Active().String() || tm.Arithmetic != c.arith || kernels.Exact() != (c.label == exactLabel) {
			t.Errorf("%s: timing records %q %q, exact %v", c.label, tm.Kernels, tm.Arithmetic, kernels.Exact())
		}
		if line := views.TimingLine(tm, 0, false); !strings.Contains(line, "kernels "+tm.Kernels) {
			t.Errorf("%s: timing line %q does not name the kernels", c.label, line)
		}
	}
}

func TestViewTheme(t *testing.T) {
	h := newHarness(t, Options{})
	for _, mode := range []string{"light", "dark"} {
		h.u.setTheme(mode)
		want := theme.VariantDark
		if mode == "light" {
			want = theme.VariantLight
		}
		if h.u.variant() != want {
			t.Errorf("%s: variant %v", mode, h.u.variant())
		}
		bg := h.u.app.Settings().Theme().Color(theme.ColorNameBackground, theme.VariantDark)
		if bg != theme.DefaultTheme().Color(theme.ColorNameBackground, want) {
			t.Errorf("%s: background %v", mode, bg)
		}
	}
	if got := h.u.app.Preferences().String(prefTheme); got != "dark" {
		t.Errorf("remembered %q", got)
	}
}

func TestKnobsRemembered(t *testing.T) {
	h := newHarness(t, Options{})
	h.u.controls.Mode.SetValue(views.Sampling)
	h.u.controls.Seed.SetText("7")
	h.generate("My cat", 2)
	// A second window on the same preferences starts with them.
	w := h.u.app.NewWindow("again")
	u2 := newUI(h.u.app, w, Options{Threads: -1, MaxTokens: 9}, func(string, func(float64, string)) (Backend, error) {
		return nil, errors.New("no model")
	})
	u2.start()
	if u2.controls.MaxTokens.Text != "9" {
		t.Errorf("restored max %q (the flag wins)", u2.controls.MaxTokens.Text)
	}
	u2.shutdown()
}

// TestSamplingBelongsToModel: the sampling knobs chosen for one model come
// back with that model, not with another (the Qwen3 thinking preset carried
// over to the demo model), and Settings › Reset puts the defaults back.
func TestSamplingBelongsToModel(t *testing.T) {
	h := newHarness(t, Options{}) // /models/fake
	h.u.controls.Mode.SetValue(views.Sampling)
	h.u.controls.Temperature.SetText("0.6")
	h.u.controls.Seed.SetText("7")
	h.generate("My cat", 2)
	h.u.openModel("/models/other")
	h.wait()
	if c := h.u.controls; c.Mode.Value() != views.Greedy || c.Temperature.Text != "0.7" || c.Seed.Text != "1" {
		t.Errorf("another model starts with mode %q temperature %q seed %q, want the defaults", c.Mode.Value(), c.Temperature.Text, c.Seed.Text)
	}
	h.u.openModel("/models/fake")
	h.wait()
	if c := h.u.controls; c.Mode.Value() != views.Sampling || c.Temperature.Text != "0.6" || c.Seed.Text != "7" {
		t.Errorf("the model's own knobs came back as mode %q temperature %q seed %q", c.Mode.Value(), c.Temperature.Text, c.Seed.Text)
	}
	h.u.controls.MaxTokens.SetText("40")
	h.u.knobs.resetKnobs()
	if c := h.u.controls; c.Mode.Value() != views.Greedy || c.Temperature.Text != "0.7" || c.Seed.Text != "1" || c.MaxTokens.Text != "100" {
		t.Errorf("after Reset: mode %q temperature %q seed %q max %q", c.Mode.Value(), c.Temperature.Text, c.Seed.Text, c.MaxTokens.Text)
	}
	h.u.openModel("/models/fake")
	h.wait()
	if c := h.u.controls; c.Mode.Value() != views.Greedy || c.Seed.Text != "1" {
		t.Errorf("Reset was not remembered: mode %q seed %q", c.Mode.Value(), c.Seed.Text)
	}
}

func TestPanicInCallbackBecomesError(t *testing.T) {
	h := newHarness(t, Options{})
	cb := h.u.guard(func() { panic("boom") })
	cb() // must not panic
	if h.u.exitCode != 0 {
		t.Errorf("exit code %d without --quit", h.u.exitCode)
	}
	h.u.opt.Quit = true
	guard1(h.u, func(int) { panic("boom") })(1)
	if h.u.exitCode != 1 {
		t.Errorf("with --quit a panic must end in exit code 1, got %d", h.u.exitCode)
	}
}

func TestPushFront(t *testing.T) {
	got := pushFront([]string{"a", "b", "c"}, "b", 3)
	if strings.Join(got, ",") != "b,a,c" {
		t.Errorf("got %v", got)
	}
	if got := pushFront([]string{"a", "b", "c"}, "d", 3); strings.Join(got, ",") != "d,a,b" {
		t.Errorf("got %v", got)
	}
}

var _ trace.Token

func TestTinyRandomModelWritesOnce(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir, err := tinyRandomModel()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"config.json", "model.safetensors", "tokenizer.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	again, err := tinyRandomModel()
	if err != nil || again != dir {
		t.Errorf("second call: %q %v", again, err)
	}
}

func TestDemoPromptMenuShowsCaption(t *testing.T) {
	h := newHarness(t, Options{})
	d := assets.DemoExamples[0]
	if got := promptLabel(d.Text); !strings.HasPrefix(got, d.Caption) || !strings.Contains(got, "My cat is purple") {
		t.Errorf("menu label %q, want the caption then the prompt", got)
	}
	if got := promptLabel("any other prompt"); got != "any other prompt" {
		t.Errorf("menu label of a non-demo prompt: %q", got)
	}
	h.u.menus.choosePrompt(d.Text)
	if h.u.controls.Prompt.Text != d.Text || !strings.Contains(h.u.controls.Status.Text, d.Caption) {
		t.Errorf("prompt %q, status %q after choosing the demo prompt", h.u.controls.Prompt.Text, h.u.controls.Status.Text)
	}
	if hist := h.u.promptHistory(); len(hist) < len(assets.DemoExamples) || hist[len(hist)-len(assets.DemoExamples)] != d.Text {
		t.Errorf("prompt history %q does not end with the demo prompts", hist)
	}
}

// waitFor polls ok on the UI goroutine until it holds (10 s at most).
func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var done bool
		onUI(func() { done = ok() })
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLongRunKeepsAttentionBounded: on a 28 × 12 grid, the attention
// captures the window holds stay within their budgets (plus the newest)
// while a 1,500-token answer grows and once it is done, and the window asks
// for a capture now and then, not for every token.
func TestLongRunKeepsAttentionBounded(t *testing.T) {
	h := newHarness(t, Options{})
	h.fake.layers, h.fake.heads = 28, 12
	h.fake.delay = 200 * time.Microsecond
	const prompt, n = "My cat is purple", 1500 // 4 prompt tokens
	generated := func(att []trace.Attention) (bytes, newest int64) {
		for _, a := range att {
			if a.QueryPos >= 4 {
				bytes, newest = bytes+a.Bytes(), a.Bytes()
			}
		}
		return bytes, newest
	}
	var over []string
	h.fake.onStep = func(k int) {
		if k%100 == 99 {
			h.u.do(func() {
				if b, newest := generated(h.u.st.Attention); b > liveAttnBudget+newest {
					over = append(over, fmt.Sprintf("token %d: %d bytes", k, b))
				}
			})
		}
	}
	h.generate(prompt, n)
	if len(over) > 0 {
		t.Errorf("during the run the window held more than %d bytes of captures (+ the newest): %v", liveAttnBudget, over)
	}
	if b, newest := generated(h.u.st.Attention); b > attnBudget+newest {
		t.Errorf("after the run the window holds %d bytes of captures, budget %d + the newest", b, attnBudget)
	}
	if h.fake.captured > n/4 {
		t.Errorf("the window asked for %d captures of %d tokens: one a frame is enough", h.fake.captured, n)
	}
	if !h.u.attn.HasData() {
		t.Error("the attention of the newest token read is not shown after the run")
	}
}

// TestFailedRunSaysSoInStatus: after a refused run the status line says
// why, not "Reading the prompt: … tokens…" as if it were still going.
func TestFailedRunSaysSoInStatus(t *testing.T) {
	h := newHarness(t, Options{})
	var failed error
	h.u.onFail = func(_ string, err error) { failed = err }
	h.fake.err = fmt.Errorf("%w: max_tokens 100000 is more than its context of 32768 tokens (prompt included): lower max tokens", engine.ErrContext)
	h.generate("My cat", 100000)
	if failed == nil {
		t.Fatal("the refusal was not reported")
	}
	if got := h.u.controls.Status.Text; strings.Contains(got, "Reading the prompt") || !strings.Contains(got, "Generation failed: too long for the model: max_tokens 100000") {
		t.Errorf("status %q after a refused run", got)
	}
	// The refused setting is not saved: the next launch would fail too.
	if got := h.u.app.Preferences().String("knob.max_tokens"); got == "100000" {
		t.Errorf("a refused max tokens was saved: %q", got)
	}
}

// TestHoverLineFollowsCountAndRun: the line under the grid named a head in
// the counting of the moment and of the run hovered; after View › Count
// or a new run it says how to read the grid again.
func TestHoverLineFollowsCountAndRun(t *testing.T) {
	h := newHarness(t, Options{})
	h.generate("My cat is purple", 3)
	h.u.attn.Grid.OnHover(2, 1, 0.25)
	if !strings.Contains(h.u.attn.Hover.Text, "layer 3, head 2") {
		t.Fatalf("hover line %q", h.u.attn.Hover.Text)
	}
	h.u.setNumbering(viz.FromZero)
	defer h.u.setNumbering(viz.FromOne)
	if strings.Contains(h.u.attn.Hover.Text, "layer 3, head 2") || !strings.HasPrefix(h.u.attn.Hover.Text, "Hover a cell") {
		t.Errorf("after View › Count the hover line reads %q", h.u.attn.Hover.Text)
	}
	h.u.attn.Grid.OnHover(2, 1, 0.25)
	h.generate("My cat is purple", 3)
	if !strings.HasPrefix(h.u.attn.Hover.Text, "Hover a cell") {
		t.Errorf("after a new run the hover line reads %q", h.u.attn.Hover.Text)
	}
}

// TestLessonReadyFirstLaunch: on the demo model's first launch the prompt
// box holds the article's sentence and the run is short; a remembered max
// tokens or the flag wins.
func TestLessonReadyFirstLaunch(t *testing.T) {
	h := newHarness(t, Options{})
	h.u.controls.Prompt.SetText("")
	h.u.lessonReady()
	if p := demoPrompts(); len(p) == 0 || h.u.controls.Prompt.Text != p[0] {
		t.Errorf("prompt box %q, want the article's prompt", h.u.controls.Prompt.Text)
	}
	if h.u.controls.MaxTokens.Text != "12" {
		t.Errorf("max tokens %q, want 12", h.u.controls.MaxTokens.Text)
	}
	h.u.app.Preferences().SetString("knob.max_tokens", "40")
	h.u.controls.MaxTokens.SetText("40")
	h.u.lessonReady()
	if h.u.controls.MaxTokens.Text != "40" {
		t.Errorf("a remembered max tokens was replaced: %q", h.u.controls.MaxTokens.Text)
	}
}
