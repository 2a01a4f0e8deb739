package app

import (
	"context"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"

	"loupe/engine/pool"
	"loupe/session"
	"loupe/views"
)

// The window's state, grouped by what it is for.

// UI is the window and the state of the session. Its fields are touched on
// the UI goroutine only; the loading and generation goroutines hand their
// results over with fyne.Do.
type UI struct {
	app     fyne.App
	win     fyne.Window
	opt     Options
	load    Loader
	latency *uiLatency  // --ui-latency probe, nil when off
	frames  *frameWatch // tells a run when its first frame is drawn (frame.go); nil in tests

	modelPath string // the loaded model's path (modelKey)

	widgets
	experiments *views.ExperimentsPanel // its result is the session's (experiments.go)
	cmp         compareState            // what waits for the running generation (compare.go)

	backend Backend
	st      *session.State // what the window shows: runs, selection, pair, heads, turns, numbering
	runData
	selection
	jobs

	demoDir string // the extracted demo model: not a "recent model"
	hooks
	facets
}

// widgets are the window's parts: the controls, the token stream and the
// panels of the tabs.
type widgets struct {
	controls    *views.Controls
	chatPanel   *views.ChatPanel // Chat | Complete above the prompt (chat.go)
	left        *container.Scroll
	stream      *views.TokenStream
	attn        *views.AttentionPanel
	next        *views.NextTokenPanel
	timing      *views.TimingPanel
	model       *views.ModelPanel
	mlp         *views.MLPPanel
	deltaNet    *views.DeltaNetPanel // Qwen3.5's recurrent layers: α, β, state norm
	experts     *views.ExpertsPanel  // an MoE model's routing of the selected token
	expertTab   *container.TabItem   // shown only while an MoE model is open
	deltaNetTab *container.TabItem   // shown only while a model with Gated DeltaNet layers is open
	inside      *inside              // Embedding, KV cache, Logit lens, Sampler (inside.go)
	compare     *views.ComparePanel  // compare.go
	bar         *views.AblateBar     // under the attention grid: heads to switch off
	tabs        *container.AppTabs   // the panels
	panels      []views.Panel        // the tabs' panels, in order (ui.go)
}

// runData is what the panels show: the run on screen and the timings of
// every run since start.
type runData struct {
	maxTokens int         // of the running generation
	runStart  time.Time   // when it started
	runCPU    float64     // process CPU seconds then
	runPool   *pool.Stats // the workers' waits during the last run's decode
}

// selection says when the panels need redrawing (the selection itself is
// the session's).
type selection struct {
	dirty bool // panels need redrawing
}

// jobs is the background work and the window's lifetime: one load or
// generation at a time, each cancellable, all cancelled on close.
type jobs struct {
	loading       bool
	generateAfter bool // generate once the model is loaded (--generate)
	shotTaken     bool
	gen           int // generation counter: late events of an old run are dropped
	cancel        context.CancelFunc
	ctx           context.Context // cancelled when the window closes
	closeAll      context.CancelFunc
	wg            sync.WaitGroup
	exitCode      int
	shutdownOnce  sync.Once
	// exitAfterShot ends a --quit run once its screenshot and report are
	// written (Main sets it; nil in tests: the app quits as a user would).
	exitAfterShot func()
}

// machine is what the host facet knows of the computer: the threads the
// model runs on, the heap's limit and the bandwidth probes (the figure
// itself is the session's).
type machine struct {
	threads  int           // worker threads set on the backend (0: the engine's default)
	mem      memoryLimit   // the soft limit on Go's heap (memory.go)
	probeDue bool          // a probe waits for the model to load or the first run to end
	loads    int           // models loaded: a probe of the weights of an earlier one is not adopted
	probing  chan struct{} // closed when the probe running now ends (it may read the model's weights)
}

// facets are the parts of the window with methods of their own: each
// holds the UI (ui) and is called by name (u.lessonMode.goChapter). Each
// keeps the state only it uses (the lesson card, the Inspect job, the
// chat's drafts, the machine's probes, the model dialogs, the knobs'
// start values, the exporters, the experiment's options and record);
// what the panels read is the session's. They still reach into the UI
// for the widgets and the session.
type facets struct {
	insideJobs       *insideJobs
	host             *host
	chatArea         *chatArea
	menus            *menus
	knobs            *knobs
	modelsMenu       *modelsMenu
	sessionFile      *sessionFile
	experimentRunner *experimentRunner
	lessonMode       *lessonMode
}

// hooks let the tests watch the window.
type hooks struct {
	onIdle   func()                        // called when a load or generation has finished
	onFail   func(title string, err error) // instead of a dialog
	onInform func(title, what string)      // instead of a hint's dialog
	onShot   func()                        // called once the --screenshot is written (or failed)
}
