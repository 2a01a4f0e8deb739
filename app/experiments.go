package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"fyne.io/fyne/v2/dialog"

	"loupe/engine"
	"loupe/engine/experiment"
	"loupe/engine/perf"
	"loupe/i18n"
	"loupe/session"
	"loupe/trace/stats"
	"loupe/views"
)

// experimentRunner runs the Experiments tab's experiments and saves and
// opens their records; the result shown is the session's.
type experimentRunner struct {
	ui      *UI
	started bool               // --experiment has been run
	opt     experiment.Options // of the last experiment started
	record  *experiment.Record // the saved result opened, if any
}

// experimentList is, by key, what the Experiments panel offers, in the order a
// lesson takes them: the two times first, then what moves each.
var experimentList = []views.Experiment{
	{Key: experiment.Texts, Title: "app.exp.texts"},
	{Key: experiment.Kernels, Title: "app.exp.kernels"},
	{Key: experiment.Context, Title: "app.exp.context"},
	{Key: experiment.Threads, Title: "app.exp.threads"},
	{Key: experiment.Quant, Title: "app.exp.quant"},
}

// newExperiments makes the Experiments panel and wires it.
func (fc *experimentRunner) newExperiments() *views.ExperimentsPanel {
	u := fc.ui
	list := make([]views.Experiment, len(experimentList))
	for i, e := range experimentList {
		list[i] = views.Experiment{Key: e.Key, Title: tr(e.Title, nil)}
	}
	p := views.NewExperimentsPanel(list)
	p.OnChoose = guard1(u, u.experimentRunner.planExperiment)
	p.OnRun = guard1(u, u.experimentRunner.runExperiment)
	p.OnCancel = u.guard(u.stop)
	p.OnSave = u.guard(u.experimentRunner.saveExperiment)
	p.OnOpen = u.guard(u.experimentRunner.pickExperiment)
	p.OnRerun = u.guard(u.experimentRunner.rerunExperiment)
	return p
}

// experimentOptions are the settings of an experiment from the left
// column: the prompt (two texts), and the written tokens of the two
// texts from Max tokens; the sweeps read The Gold-Bug, as `loupe sweep`.
func (fc *experimentRunner) experimentOptions(key string) experiment.Options {
	u := fc.ui
	opt := experiment.Options{What: key, Prompt: experiment.GoldBug, Lang: views.Lang}
	if key == experiment.Texts {
		opt.Prompt, opt.Second, opt.SecondLabel = u.controls.Prompt.Text, experiment.GoldBug, tr("app.experiment.goldbug", nil)
		if s, err := u.controls.Settings(); err == nil {
			opt.DecodeTokens = s.MaxTokens
		}
	}
	return opt
}

// planExperiment says what the chosen experiment runs and about how long,
// at the speeds of the last run (or guessed from the bandwidth).
func (fc *experimentRunner) planExperiment(key string) {
	u := fc.ui
	if u.backend == nil {
		fc.show(func(e *session.Experiment) { e.Key, e.Plan = key, tr("app.exp.open_model", nil) })
		return
	}
	speeds := experiment.GuessSpeeds(u.st.Info, u.st.Yardstick())
	if n := len(u.st.Timings); n > 0 {
		t := u.st.Timings[n-1]
		if pre, dec := stats.Rate(t.PrefillTokens, t.PrefillSeconds), stats.Rate(t.DecodeTokens, t.DecodeSeconds); pre > 0 && dec > 0 {
			speeds = experiment.Speeds{PrefillTokS: pre, DecodeTokS: dec}
		}
	}
	threads := u.host.threads
	if m, ok := u.backend.(*engine.Model); ok {
		threads = m.Threads()
	}
	plan := experiment.Plan(key, u.st.Info, u.experimentRunner.experimentOptions(key), speeds, threads)
	fc.show(func(e *session.Experiment) { e.Key, e.Plan = key, plan })
}

// show changes what the Experiments panel shows and redraws it (when on
// screen: refreshPanels).
func (fc *experimentRunner) show(change func(e *session.Experiment)) {
	change(&fc.ui.st.Experiment)
	fc.ui.dirty = true
	fc.ui.refreshPanels()
}

// runExperiment runs the chosen experiment in the background, as a
// generation: the model does one thing at a time, and Cancel (or Esc)
// stops it within one forward step.
func (fc *experimentRunner) runExperiment(key string) {
	u := fc.ui
	u.experimentRunner.runExperimentAsking(key, true)
}

// runExperimentAsking is runExperiment; ask: confirm writing the quant
// sweep's copies first (--experiment does not ask).
func (fc *experimentRunner) runExperimentAsking(key string, ask bool) {
	u := fc.ui
	if u.st.Running || u.loading {
		fc.show(func(e *session.Experiment) { e.Status = tr("app.lesson.busy", nil) })
		return
	}
	m, ok := u.backend.(*engine.Model)
	if !ok {
		u.fail(tr("app.err.no_model_loaded", nil), errors.New(tr("app.hint.model_for_experiments", nil)))
		return
	}
	opt := u.experimentRunner.experimentOptions(key)
	if strings.TrimSpace(opt.Prompt) == "" {
		u.fail(tr("app.err.empty_prompt", nil), errors.New(tr("app.hint.prompt_first_text", nil)))
		return
	}
	c, err := applyKernels(u.controls.Kernels.Selected)
	if err != nil {
		u.fail(tr("app.err.kernel_level", nil), err)
		return
	}
	opt.Kernels = c
	fc.record, u.st.Experiment.Saved = nil, false
	if key == experiment.Quant && ask {
		u.experimentRunner.confirmCopies(m, opt)
		return
	}
	u.experimentRunner.startExperiment(m, opt)
}

// confirmCopies shows what the quant sweep writes, and where, and starts
// it once the user agrees (nothing to write: at once). --experiment quant
// runs without asking.
func (fc *experimentRunner) confirmCopies(m *engine.Model, opt experiment.Options) {
	u := fc.ui
	bytes, dir, err := experiment.QuantCopies(m, "")
	if err != nil {
		u.fail(tr("app.exp.quant_err", nil), err)
		return
	}
	if bytes == 0 {
		u.experimentRunner.startExperiment(m, opt)
		return
	}
	msg := tr("app.exp.quant_msg", i18n.Args{"Bytes": nums().Bytes(float64(bytes)), "Dir": dir})
	dialog.ShowConfirm(tr("app.exp.quant_title", nil), msg, func(ok bool) {
		defer u.rescue()
		if ok && !u.st.Running && !u.loading {
			u.experimentRunner.startExperiment(m, opt)
		}
	}, u.win)
}

// startExperiment runs opt on m in the background; experimentDone shows
// the result.
func (fc *experimentRunner) startExperiment(m *engine.Model, opt experiment.Options) {
	u := fc.ui
	fc.opt = opt
	ctx, cancel := context.WithCancel(u.ctx)
	u.cancel, u.st.Running = cancel, true
	u.gen++
	gen, bw := u.gen, u.st.Yardstick()
	u.controls.SetRunning(true)
	fc.show(func(*session.Experiment) { u.st.StartExperiment(tr("app.status.starting", nil)) })
	opt.Progress = func(frac float64, what string) {
		u.do(func() {
			if gen == u.gen {
				fc.show(func(*session.Experiment) { u.st.ExperimentProgress(frac, what) })
			}
		})
	}
	opt.Bandwidth = func(threads int) (float64, error) { return experimentBandwidth(m, threads, m.Threads(), bw) }
	u.wg.Add(1)
	go func() {
		defer u.wg.Done()
		u.insideJobs.waitInspect() // the model runs one thing at a time
		r, err := runExperimentSafely(ctx, m, opt)
		// The cache now holds the experiment's text, not the last run's:
		// the KV cache and Logit lens tabs must recompute theirs.
		m.ReleaseContext()
		u.do(func() { u.experimentRunner.experimentDone(gen, r, err) })
	}()
}

// runExperimentSafely is experiment.Run with a panic turned into an error.
func runExperimentSafely(ctx context.Context, m *engine.Model, opt experiment.Options) (r experiment.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v", p)
		}
	}()
	return experiment.Run(ctx, m, opt)
}

// experimentBandwidth is the read bandwidth of threads workers: the
// window's figure for the model's own count, else a short probe beside
// the model m (3 passes, perf.MeasureBeside), kept for next time
// (probedFigure). A variable: tests give a figure without probing.
var experimentBandwidth = func(m perf.WeightHolder, threads, modelThreads int, window float64) (float64, error) {
	if threads == modelThreads && window > 0 {
		return window, nil
	}
	cached, ok := perf.CachedBandwidth(threads)
	b, err := perf.MeasureBeside(m, threads, 3)
	if err != nil {
		if ok {
			return cached.BestGBs, nil
		}
		return 0, err
	}
	perf.RememberBandwidth(b)
	return probedFigure(b, cached), nil
}

// probedFigure is the bandwidth a probe b gives: over the model's weights,
// b itself, as the window's figure (session.State.Yardstick); over a
// buffer, no less than the cached figure (b may be from a busy minute).
func probedFigure(b, cached perf.Bandwidth) float64 {
	if b.Source == perf.SourceWeights {
		return b.BestGBs
	}
	return max(b.BestGBs, cached.BestGBs)
}

// experimentDone shows the result of the experiment started as gen.
func (fc *experimentRunner) experimentDone(gen int, r experiment.Result, err error) {
	u := fc.ui
	if gen != u.gen {
		return
	}
	u.st.Running = false
	u.cancel()
	u.controls.SetRunning(false)
	if err != nil {
		fc.show(func(*session.Experiment) {
			u.st.EndExperiment(nil, "", tr("app.exp.failed_status", nil)+" "+err.Error())
		})
		u.fail(tr("app.exp.failed", nil), err)
	} else {
		status := "" // the figure says it is done
		switch rec := fc.record; {
		case r.Cancelled:
			status = experiment.CancelledIn(r, views.Lang)
		case rec != nil:
			status = tr("app.exp.rerun_done", nil) + " " + experiment.CompareIn(*rec, r, views.Lang)
		}
		u.st.EndExperiment(&r, experiment.ReadingIn(r, views.Lang), status)
		u.keepExperimentRuns(r)
		fc.show(func(*session.Experiment) {})
	}
	u.afterRun(err)
	u.idle()
}

// validExperiment reports whether key names an experiment of the panel.
func validExperiment(key string) bool {
	for _, e := range experimentList {
		if e.Key == key {
			return true
		}
	}
	return false
}

// startFlagExperiment runs --experiment once the model is loaded (and the
// first generation, if any, has finished); true when it started one.
func (fc *experimentRunner) startFlagExperiment() bool {
	u := fc.ui
	key := u.opt.Experiment
	if key == "" || fc.started {
		return false
	}
	fc.started = true
	u.showTab("experiments")
	u.experimentRunner.planExperiment(key)
	u.experimentRunner.runExperimentAsking(key, false)
	return u.st.Running
}
