package app

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"

	"loupe/engine/experiment"
	"loupe/engine/perf"
	"loupe/engine/pool"
	"loupe/kernels"
	"loupe/trace"
	"loupe/trace/stats"
	"loupe/views"
)

// UI is the window and the state of the session. Its fields are touched on
// the UI goroutine only; the loading and generation goroutines hand their
// results over with fyne.Do.
type UI struct {
	app     fyne.App
	win     fyne.Window
	opt     Options
	load    Loader
	latency *uiLatency // --ui-latency probe, nil when off

	widgets
	chat    chatState
	pending *chatRequest // the chat turn begin hands to the worker
	// experiments: the Experiments panel and its last result (experiments.go)
	experiments       *views.ExperimentsPanel
	experiment        *experiment.Result
	experimentStarted bool               // --experiment has been run
	experimentOpt     experiment.Options // of the last experiment started
	experimentRecord  *experiment.Record // the saved result opened, if any
	cmp               compareState       // history, compared pair, selected heads (compare.go)
	les               lessonState        // the lesson card and projector mode (lesson.go)

	backend Backend
	info    trace.ModelInfo
	runData
	selection
	jobs
	machine

	demoDir string // the extracted demo model: not a "recent model"
	hooks
	models modelDialogs // File › Models on this computer, Get a model… (models.go)
}

// widgets are the window's parts: the controls, the token stream and the
// panels of the tabs.
type widgets struct {
	controls  *views.Controls
	chatPanel *views.ChatPanel // Chat | Complete above the prompt (chat.go)
	left      *container.Scroll
	stream    *views.TokenStream
	attn      *views.AttentionPanel
	next      *views.NextTokenPanel
	timing    *views.TimingPanel
	model     *views.ModelPanel
	mlp       *views.MLPPanel
	deltaNet  *views.DeltaNetPanel      // Qwen3.5's recurrent layers: α, β, state norm
	inside    *inside                   // Embedding, KV cache, Logit lens, Sampler (inside.go)
	compare   *views.ComparePanel       // compare.go
	bar       *views.AblateBar          // under the attention grid: heads to switch off
	tabs      *container.AppTabs        // the panels
	exports   map[string]views.Exporter // every panel by its export name (figures.go)
}

// runData is what the panels show: the run on screen and the timings of
// every run since start.
type runData struct {
	tokens    []trace.Token     // prompt then generated, as shown
	steps     []trace.Step      // of the current run
	attention []trace.Attention // of the current run
	mlps      []trace.MLP       // of the last finished run
	lastRun   *trace.Run        // the last finished run
	timings   []trace.Timing    // every finished run since start
	live      trace.Timing      // the running generation so far
	maxTokens int               // of the running generation
	runStart  time.Time         // when it started
	runCPU    float64           // process CPU seconds then
	runPool   *pool.Stats       // the workers' waits during the last run's decode
}

// selection is the token the panels look at.
type selection struct {
	query  int  // selected token, -1 when none
	source int  // source token of the grid, -1: strongest
	follow bool // the selection follows the newest token
	dirty  bool // panels need redrawing
}

// jobs is the background work and the window's lifetime: one load or
// generation at a time, each cancellable, all cancelled on close.
type jobs struct {
	running, loading bool
	generateAfter    bool // generate once the model is loaded (--generate)
	shotTaken        bool
	gen              int // generation counter: late events of an old run are dropped
	cancel           context.CancelFunc
	ctx              context.Context // cancelled when the window closes
	closeAll         context.CancelFunc
	wg               sync.WaitGroup
	exitCode         int
	shutdownOnce     sync.Once
}

// machine is what the window knows of the computer: the threads it runs
// on and the memory bandwidth measured (bandwidth.go).
type machine struct {
	threads   int          // worker threads set on the backend (0: the engine's default)
	bandwidth float64      // measured read GB/s, 0 unknown
	ceiling   perf.Ceiling // the probes behind it
	measuring bool
}

// hooks let the tests watch the window.
type hooks struct {
	onIdle func()                        // called when a load or generation has finished
	onFail func(title string, err error) // instead of a dialog
}

// newUI builds the window's content, menus and shortcuts.
func newUI(a fyne.App, w fyne.Window, opt Options, load Loader) *UI {
	u := &UI{app: a, win: w, opt: opt, load: load, selection: selection{query: -1, source: -1}, cmp: compareState{a: -1, b: -1, sourceA: -1}}
	u.ctx, u.closeAll = context.WithCancel(context.Background())
	u.controls = views.NewControls(u.guard(u.generate), u.guard(u.stop))
	u.chatPanel = u.newChatPanel()
	u.stream = views.NewTokenStream()
	u.stream.OnSelect = guard1(u, u.selectQuery)
	u.stream.OnSource = guard1(u, u.selectSource)
	u.tabs = u.newPanels()
	right := container.NewVSplit(u.stream, u.tabs)
	right.Offset = 0.22
	u.left = container.NewVScroll(container.NewVBox(u.chatPanel.Box, u.controls.Box))
	split := container.NewHSplit(u.left, u.newLessonArea(right))
	split.Offset = 0.24
	u.les.split = split
	w.SetContent(split)
	u.controls.SetKernelOptions(kernelOptions(), "auto")
	u.controls.SetHistory(u.promptHistory())
	u.buildMenu()
	u.addShortcuts()
	w.SetOnDropped(func(p fyne.Position, uris []fyne.URI) { defer u.rescue(); u.dropped(p, uris) })
	return u
}

// newPanels makes the tabs that follow the selected token.
func (u *UI) newPanels() *container.AppTabs {
	u.attn = views.NewAttentionPanel()
	u.attn.OnQuery = guard1(u, func(pos int) { u.stream.Select(pos) })
	u.next = views.NewNextTokenPanel()
	u.timing = views.NewTimingPanel()
	u.model = views.NewModelPanel()
	u.mlp = views.NewMLPPanel()
	u.inside = u.newInside()
	u.mlp.OnExport = guard1(u, func(f string) { u.export("mlp", f) })
	u.deltaNet = views.NewDeltaNetPanel()
	u.deltaNet.OnExport = guard1(u, func(f string) { u.export("deltanet", f) })
	u.attn.OnExport = func(fig, f string) { defer u.rescue(); u.export(fig, f) }
	u.next.OnExport = guard1(u, func(f string) { u.export("next-token", f) })
	u.next.OnBranch = u.guard(u.branchDialog)
	u.timing.OnExport = guard1(u, func(f string) { u.export("timing", f) })
	u.timing.OnRemeasure = u.guard(u.remeasure)
	u.model.OnExport = guard1(u, func(f string) { u.export("model", f) })
	attention := u.newCompare()
	u.experiments = u.newExperiments()
	tabs := container.NewAppTabs(
		container.NewTabItem("Attention", attention),
		container.NewTabItem("Next token", u.next),
		container.NewTabItem("Timing", u.timing),
		container.NewTabItem("Model", u.model),
		container.NewTabItem("MLP", u.mlp),
		container.NewTabItem("DeltaNet", u.deltaNet),
		container.NewTabItem("Embedding", u.inside.embed),
		container.NewTabItem("KV cache", u.inside.kv),
		container.NewTabItem("Logit lens", u.inside.lens),
		container.NewTabItem("Sampler", u.inside.sampler),
		container.NewTabItem("Compare", u.compare),
		container.NewTabItem("Experiments", u.experiments),
	)
	tabs.OnSelected = func(*container.TabItem) { defer u.rescue(); u.dirty = true; u.refreshPanels() }
	u.exports = u.exportersByName()
	return tabs
}

// addShortcuts makes Ctrl+Enter generate and Esc stop wherever the focus is.
func (u *UI) addShortcuts() {
	for _, k := range []fyne.KeyName{fyne.KeyReturn, fyne.KeyEnter} {
		u.win.Canvas().AddShortcut(&desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierControl},
			func(fyne.Shortcut) { defer u.rescue(); u.generate() })
	}
	u.win.Canvas().SetOnTypedKey(guard1(u, u.typedKey))
}

// typedKey handles keys nothing focused took: Esc stops, ← and → move the
// selected token (after a click on the stream).
func (u *UI) typedKey(k *fyne.KeyEvent) {
	if u.lessonKey(k) {
		return
	}
	switch k.Name {
	case fyne.KeyEscape:
		u.stop()
	case fyne.KeyLeft:
		if u.query > 0 {
			u.stream.Select(u.query - 1)
		}
	case fyne.KeyRight:
		if u.query >= 0 && u.query < len(u.tokens)-1 {
			u.stream.Select(u.query + 1)
		}
	}
}

// start applies the flags, measures the bandwidth and opens the first model.
// selectKernels sets the menu from --kernels, else LOUPE_KERNELS (the
// saved choice stays when neither is given).
func (u *UI) selectKernels() {
	k, what := u.opt.Kernels, "--kernels "
	if k == "" {
		k, what = os.Getenv("LOUPE_KERNELS"), "LOUPE_KERNELS="
	}
	if k == "" {
		return
	}
	l, ok := parseKernelLabel(k)
	switch {
	case ok && kernelName(k) == "auto":
		u.controls.Kernels.SetSelected("auto")
	case ok && kernelName(k) == "exact":
		u.controls.Kernels.SetSelected(exactLabel)
	case ok && kernels.Supported(l):
		u.controls.Kernels.SetSelected(kernelLabel(l))
	case ok:
		u.fail("Kernel level", fmt.Errorf("%s%s: this CPU cannot run it (it can: %s)", what, k,
			strings.Join(kernelOptions(), ", ")))
	default:
		u.fail("Unknown kernel level", fmt.Errorf("%s%q: use auto, exact, avx512bf16, avx512, avx2 or generic", what, k))
	}
}

func (u *UI) start() {
	u.restoreKnobs()
	u.restoreNumbering()
	if u.opt.Prompt != "" {
		u.controls.Prompt.SetText(u.opt.Prompt)
	}
	if u.opt.MaxTokens > 0 {
		u.controls.MaxTokens.SetText(fmt.Sprint(u.opt.MaxTokens))
	}
	if u.opt.Threads >= 0 {
		u.controls.Threads.SetText(fmt.Sprint(u.opt.Threads))
	}
	u.selectKernels()
	u.showTab(u.opt.Tab)
	if u.opt.UILatency {
		u.startUILatency()
	}
	u.showDialog(u.opt.Dialog)
	u.generateAfter = u.opt.Generate
	u.startLesson()
	if u.opt.Ablate != "" || u.opt.Variant != "" {
		u.cmp.then = u.flagExperiments
	}
	u.startBandwidth()
	path := u.opt.Model
	if path == "" {
		dir, err := demoModel()
		if err != nil {
			u.fail("No model", fmt.Errorf("the demo model could not be prepared: %w; open a model folder (File › Open model folder…)", err))
			return
		}
		path, u.demoDir = dir, dir
	}
	u.openModel(path)
}

// showTab selects a panel by its export name.
func (u *UI) showTab(name string) {
	for i, it := range u.tabs.Items {
		if panelName(it.Text) == name {
			u.tabs.SelectIndex(i)
		}
	}
}

// shutdown cancels what runs, waits a little for it, and frees the model,
// once: Main and the quit watchdog (exitIfStuck) may both call it.
func (u *UI) shutdown() { u.shutdownOnce.Do(u.shutdownNow) }

func (u *UI) shutdownNow() {
	u.stopUILatency()
	u.closeAll()
	done := make(chan struct{})
	go func() { u.wg.Wait(); close(done) }()
	select {
	case <-done:
		if u.backend != nil {
			u.backend.Close()
		}
	case <-timeAfter(3):
		// A stuck worker must not keep the process alive: the OS frees the model.
	}
}

// fail reports err in a dialog and on stderr; with --quit it also sets
// the exit code and leaves once the generation has nothing more to do.
func (u *UI) fail(title string, err error) {
	if u.onFail != nil {
		u.onFail(title, err)
		return
	}
	fmt.Fprintf(os.Stderr, "loupe: %s: %v\n", title, err)
	if u.opt.Quit {
		u.exitCode = 1
		if !u.running && !u.loading {
			u.app.Quit()
		}
		return
	}
	d := dialog.NewError(fmt.Errorf("%s\n\n%w", title, err), u.win)
	d.Show()
}

// do runs f on the UI goroutine, unless the window is closing: after the
// event loop has stopped nobody would run it.
func (u *UI) do(f func()) {
	if u.ctx.Err() == nil {
		fyne.Do(func() {
			if serialDo != nil {
				serialDo.Lock()
				defer serialDo.Unlock()
			}
			defer u.rescue()
			f()
		})
	}
}

// guard wraps a UI callback so that a panic in it becomes an error dialog:
// no panic reaches the user.
func (u *UI) guard(f func()) func() {
	if f == nil {
		return nil
	}
	return func() { defer u.rescue(); f() }
}

// guard1 is guard for callbacks with one argument.
func guard1[T any](u *UI, f func(T)) func(T) {
	return func(x T) { defer u.rescue(); f(x) }
}

// rescue turns a panic of the UI goroutine into an error dialog; the
// session stays usable. It must be deferred directly.
func (u *UI) rescue() {
	if r := recover(); r != nil {
		u.fail("Internal error", fmt.Errorf("%v (the window stays usable; please report it)", r))
	}
}

func (u *UI) idle() {
	if u.onIdle != nil {
		u.onIdle()
	}
}

// selectQuery makes pos the query token of the panels.
func (u *UI) selectQuery(pos int) {
	u.query = pos
	u.follow = u.running && pos == len(u.tokens)-1
	if u.source > pos {
		u.source = -1
	}
	u.dirty = true
	u.refreshPanels()
}

// selectSource makes pos the source token of the attention grid.
func (u *UI) selectSource(pos int) {
	u.source = pos
	if u.query >= 0 && pos > u.query {
		u.source = -1
	}
	u.dirty = true
	u.refreshPanels()
}

// refreshPanels redraws the panels that depend on the selection.
func (u *UI) refreshPanels() {
	if !u.dirty {
		return
	}
	u.dirty = false
	q := u.query
	if q < 0 || q >= len(u.tokens) {
		return
	}
	// While the engine runs, only the tab on screen is drawn (each drawing
	// takes CPU from the engine): a hidden one is drawn when it is chosen,
	// and every one when the run ends.
	seen := func(o fyne.CanvasObject) bool { return !u.running || u.selected(o) }
	if seen(u.attnTab()) {
		u.refreshAttention(q)
	}
	if seen(u.next) {
		u.next.Display(u.tokens, u.steps, q)
	}
	if u.running && u.live.PrefillTokens > 0 && u.selected(u.timing) {
		u.timing.Display(append(u.timings[:len(u.timings):len(u.timings)], u.live), u.bandwidth, u.measuring)
	}
	if u.selected(u.mlp) {
		// Drawn only when seen: a gonum/plot figure costs tens of ms.
		u.mlp.Latest = u.follow && !u.onDemand()
		u.mlp.Display(u.tokens, u.mlps, u.info.Layers, q)
	}
	if u.selected(u.deltaNet) {
		var dn []trace.DeltaNet
		if u.lastRun != nil && !u.running {
			dn = u.lastRun.DeltaNet
		}
		u.deltaNet.Display(u.info, u.tokens, dn, q)
	}
	if u.selected(u.compare) && !u.running {
		u.refreshCompare()
	}
	u.refreshInside()
}

// refreshAttention draws the attention grid of query q.
func (u *UI) refreshAttention(q int) {
	aq := q
	if _, ok := stats.AttentionAt(u.attention, q); !ok && u.follow && !u.onDemand() {
		// The newest token has not been read by the model yet: its attention
		// comes with the next step. Show the newest one there is. Once the
		// run is over it is recomputed (attentionOnDemand).
		aq = stats.LastCaptured(u.attention, q)
	}
	u.attn.Display(u.info, u.tokens, u.attention, aq, u.source)
	if u.attn.HasData() && u.attn.Source() != u.stream.Source() {
		u.stream.SetSource(u.attn.Source()) // the chosen or the strongest source, outlined
	}
	switch {
	case aq == q:
	case u.running && q-aq == 1:
		u.attn.Title.SetText(u.attn.Title.Text + " — the newest token is read at the next step")
	case u.running:
		// The window asks for a capture a frame, not a token (wantsAttention).
		u.attn.Title.SetText(u.attn.Title.Text + fmt.Sprintf(" — while the model writes, the one shown is %d tokens behind the newest", q-aq))
	default:
		u.attn.Title.SetText(u.attn.Title.Text + " — the newest token was never read by the model: the latest one read is shown")
	}
	if r := u.lastRun; r != nil && !u.running && len(r.Settings.Ablate) > 0 && u.attn.HasData() {
		u.attn.Title.SetText(u.attn.Title.Text + fmt.Sprintf(" — a run with %d heads switched off", len(r.Settings.Ablate)))
	}
}
