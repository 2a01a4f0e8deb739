package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"loupe/engine"
	"loupe/engine/perf"
	"loupe/engine/pool"
	"loupe/i18n"
	"loupe/kernels"
	"loupe/trace"
	"loupe/views"
)

// A generation hands its events to the window in batches, and each batch
// redraws the window once. A frame is not cheap: on this project's 2-core
// VM (Mesa's llvmpipe under Xvfb, no GPU) a batch costs 50-65 ms of the UI
// thread's CPU (the panels, Fyne's layout and text, the GL calls) and ~30 ms
// more in llvmpipe's threads, all of it taken from the engine when the
// engine has every core. So the pace follows the measured cost: the next
// batch comes drawShare times the UI thread's CPU of the last one later,
// never sooner than frameEvery nor later than frameEveryMax (the first
// one after 2 × frameEvery). Where frames are cheap (a GPU, a fast CPU) the
// window streams four times a second; on that VM every 2 s.
var (
	frameEvery    = 250 * time.Millisecond
	frameEveryMax = 2 * time.Second
)

// drawShare: the UI thread draws at most 1/40 of the time during a
// generation, ~5 % with a software rasterizer's threads beside it.
const drawShare = 40

func timeAfter(seconds int) <-chan time.Time { return time.After(time.Duration(seconds) * time.Second) }

// generate starts a generation with the prompt and settings of the left
// column. It refuses, with a dialog saying why, when it cannot.
func (u *UI) generate() {
	if u.st.Running || u.postpone() {
		return
	}
	if u.backend == nil {
		u.fail(tr("app.err.no_model_loaded", nil), errors.New(tr("app.hint.open_model_drop", nil)))
		return
	}
	s, prompt, ok := u.readSettings()
	if !ok {
		return
	}
	if s.Threads != u.host.threads {
		u.backend.SetThreads(s.Threads) // rebuilds the worker pool: only on a change
		u.host.threads = s.Threads
	}
	req, _, ids, err := u.chatArea.chatTurn(prompt)
	if err != nil {
		u.fail(tr("app.err.chat_template", nil), err)
		return
	}
	if req == nil {
		ids = u.backend.Encode(prompt)
	}
	if len(ids) == 0 {
		u.fail(tr("app.err.empty_prompt", nil), errors.New(tr("app.hint.no_tokens", nil)))
		return
	}
	u.knobs.saveKnobs()
	if views.NeedsLargeFont(prompt) && views.DrawLargeFonts(true) {
		u.dirty = true // the stream's earlier tokens may now draw what they wrote U+XXXX
	}
	u.dirty = true // the Model tab's kernel line follows the level chosen
	u.chatArea.pending = req
	u.begin(prompt, ids, s)
}

// postpone defers the generation until the model is loaded or the
// bandwidth measured, and says so.
func (u *UI) postpone() bool {
	switch {
	case u.loading:
		u.controls.Status.SetText(tr("app.status.loading_then", nil))
	case u.st.Measuring:
		// Measuring streams memory on every core: a generation now would
		// time the contention, not the model.
		u.controls.Status.SetText(tr("app.status.measuring_bw", nil))
	default:
		return false
	}
	u.generateAfter = true
	return true
}

// readSettings checks the knobs and the prompt and applies the kernel
// choice (between generations, as kernels.Use requires).
func (u *UI) readSettings() (trace.Settings, string, bool) {
	s, err := u.controls.Settings()
	if err != nil {
		u.fail(tr("app.err.invalid_setting", nil), err)
		return s, "", false
	}
	c, err := applyKernels(s.Kernels)
	if err != nil {
		u.fail(tr("app.err.kernel_level", nil), err)
		return s, "", false
	}
	s.Kernels, s.Arithmetic = c.Level().String(), c.Arithmetic()
	prompt := u.controls.Prompt.Text
	if strings.TrimSpace(prompt) == "" {
		u.fail(tr("app.err.empty_prompt", nil), errors.New(tr("app.hint.type_prompt", nil)))
		return s, "", false
	}
	return s, prompt, true
}

// begin resets the session to the prompt's tokens and starts the worker.
func (u *UI) begin(prompt string, ids []int, s trace.Settings) {
	u.st.Tokens = promptTokens(u.backend, ids)
	u.chatArea.flagTokens(u.st.Tokens)
	req := u.chatArea.pending
	u.chatArea.pending = nil
	u.host.slimHistory()
	u.st.Steps, u.st.Attention, u.st.MLPs = nil, nil, nil
	u.st.Live = trace.Timing{}
	u.maxTokens = s.MaxTokens
	u.stream.SetTokens(u.st.Tokens)
	u.st.Query, u.st.Source, u.st.Follow, u.dirty = len(ids)-1, -1, true, true
	u.stream.SetSelected(u.st.Query)
	u.stream.SetSource(-1)
	u.attn.ResetHover() // it named a cell of the previous run
	u.rememberPrompt(prompt)
	ctx, cancel := context.WithCancel(u.ctx)
	u.cancel = cancel
	u.st.Running = true
	u.lessonMode.lessonRunStarted()
	u.gen++
	u.st.Settings = s
	u.controls.SetRunning(true)
	u.controls.Status.SetText(tr("app.status.reading", i18n.Args{"N": thousands(len(ids))}))
	u.runStart, u.runCPU = time.Now(), perf.ProcessCPUSeconds()
	opt := generateOptions(s, u.st.Info, len(ids))
	opt.Kernels = kernels.Current() // the window's: readSettings applied it
	u.host.mem.forRun(u.st.Info, len(ids), s.MaxTokens, opt)
	var painted <-chan struct{}
	if u.frames != nil {
		painted = u.frames.arm()
	}
	u.wg.Add(1)
	go u.work(ctx, u.gen, u.backend, req, prompt, len(ids), opt, painted)
}

// work runs one generation off the UI goroutine, once the frame that
// starts it is drawn (painted: see frame.go). The engine's events are
// handed to the UI in batches, paced by what drawing them costs (events).
func (u *UI) work(ctx context.Context, gen int, b Backend, req *chatRequest, prompt string, nPrompt int, opt engine.GenerateOptions, painted <-chan struct{}) {
	defer u.wg.Done()
	u.insideJobs.waitInspect() // the model runs one thing at a time
	u.awaitFrame(ctx, painted)
	var run *trace.Run
	var err error
	var evs *events
	evs = newEvents(2*frameEvery, func() { u.do(func() { u.deliver(gen, evs) }) })
	evs.attnBudget, evs.nPrompt = liveAttnBudget, nPrompt
	evs.lastRead = nPrompt + opt.Settings.MaxTokens - 2
	opt.Attn.GeneratedIf = evs.wantsAttention
	add := evs.add
	pr, _ := b.(poolReporter)
	if pr != nil {
		// The workers' waits count from the end of prefill, as bench's
		// do: --timing-json sets the window's decode beside bench's.
		add = func(ev engine.Event) {
			if ev.Prefill != nil {
				pr.ResetPoolStats()
			}
			evs.add(ev)
		}
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("internal error in the engine: %v", r)
			}
		}()
		run, err = runOne(ctx, b, req, prompt, opt, add)
	}()
	evs.stop()
	var st *pool.Stats
	if pr != nil {
		s := pr.PoolStats()
		st = &s
	}
	u.do(func() { u.deliver(gen, evs); u.runPool = st; u.finish(gen, run, err) })
}

// poolReporter is a Backend that says what its workers did
// (*engine.Model; see engine.PoolStats).
type poolReporter interface {
	PoolStats() pool.Stats
	ResetPoolStats()
}

// deliver folds the events that came since the last batch into the
// session and redraws the panels once for all of them.
func (u *UI) deliver(gen int, evs *events) {
	batch := evs.take()
	if gen != u.gen || len(batch) == 0 {
		return
	}
	if c, ok := threadCPU(); ok {
		evs.pace(c)
	}
	for _, ev := range batch {
		u.onEvent(gen, ev)
	}
	u.st.Attention = trace.TrimAttention(u.st.Attention, liveAttnBudget, u.pinnedAttention())
	u.refreshPanels()
	if len(u.st.Steps) > 0 {
		u.host.mem.decoding()
	}
	u.host.mem.keepHeadroom()
}

// stop cancels the running generation; the engine answers within a token.
func (u *UI) stop() {
	if u.st.Running && u.cancel != nil {
		u.cancel()
		u.controls.Status.SetText(tr("app.status.stopping", nil))
	}
}

// applyKernels reads the kernel menu's label as a choice, which the runs
// started now carry, and puts it in use between generations for what
// names none (the Inside tab's recomputations, the kernel line).
func applyKernels(label string) (kernels.Choice, error) {
	c, ok := kernels.ChoiceOf(kernelName(label))
	if !ok {
		return c, fmt.Errorf("unknown kernel level %q", label)
	}
	return c, kernels.Use(c)
}
