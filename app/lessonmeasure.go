package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"loupe/format"
	"loupe/i18n"
	"loupe/lesson"
	"loupe/trace"
	"loupe/views"
)

// showPlan offers a chapter's runs when it has none yet.
func (fc *lessonMode) showPlan(ch lesson.Chapter) {
	u := fc.ui
	c := u.lessonMode.card
	switch {
	case u.lessonMode.measuring:
		return // the progress stays
	case ch.Skipped == "":
		c.SetPlan("", false)
	case u.lessonMode.projector:
		// The column beside the panels holds the chapter's text and its
		// keys; the whole plan (a dozen lines at projector type) pushed
		// the button below a 768-pixel screen. The text says what the runs
		// are; the card says how long they take.
		secs := lesson.Estimate(u.lessonMode.in, u.lessonMode.measureOptions(), u.lessonMode.goldTokens())
		plan := tr("app.lesson.plan_short", nil)
		if secs > 0 {
			plan = tr("app.lesson.plan_about", i18n.Args{"Time": nums().Duration(format.Round2(secs))})
		}
		c.SetPlan(plan, false)
	default:
		plan := tr("app.lesson.plan", i18n.Args{"Plan": lowerFirst(lesson.Plan(u.lessonMode.in, u.lessonMode.measureOptions(), u.lessonMode.goldTokens()))})
		c.SetPlan(plan, false)
	}
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// measureOptions are the timing runs' settings: the lesson's run's.
func (fc *lessonMode) measureOptions() lesson.MeasureOptions {
	u := fc.ui
	opt := lesson.MeasureOptions{}
	if u.lessonMode.run != nil {
		opt.Settings = u.lessonMode.run.Settings
	}
	bw := u.st.Yardstick()
	if bw > 0 {
		opt.Bandwidth = func() (float64, error) { return bw, nil }
	}
	return opt
}

func (fc *lessonMode) goldTokens() int {
	u := fc.ui
	if m, ok := u.backend.(lesson.Runner); ok && u.lessonMode.run != nil {
		return lesson.GoldBugTokens(m, u.lessonMode.run.Settings.MaxTokens)
	}
	return 0
}

// measureLesson makes the timing runs of the chapters that need them in
// the background, as a generation: the model does one thing at a time,
// and Esc (or the card's button) stops them within a token.
func (fc *lessonMode) measureLesson() {
	u := fc.ui
	if u.lessonMode.measuring {
		u.stop()
		return
	}
	m, ok := u.backend.(lesson.Runner)
	switch {
	case u.st.Running || u.loading:
		u.lessonMode.card.SetPlan(tr("app.lesson.busy", nil), false)
		return
	case !ok || u.lessonMode.l == nil:
		u.fail(tr("app.lesson.nothing", nil), errors.New(tr("app.hint.lesson_needs_run", nil)))
		return
	}
	c, err := applyKernels(u.controls.Kernels.Selected)
	if err != nil {
		u.fail(tr("app.err.kernel_level", nil), err)
		return
	}
	ctx, cancel := context.WithCancel(u.ctx)
	u.cancel, u.st.Running, u.lessonMode.measuring = cancel, true, true
	u.gen++
	gen, in, opt, run := u.gen, u.lessonMode.in, u.lessonMode.measureOptions(), u.lessonMode.run
	opt.Kernels = c // every timing run computes with the window's choice
	// The runs below fill the cache with their own texts: the handout's
	// KV cache figure reads the lesson's rows now.
	u.lessonMode.kv, u.lessonMode.kvFor = u.lessonMode.lessonKV(in), run
	u.controls.SetRunning(true)
	u.lessonMode.card.SetPlan(tr("app.status.starting", nil), true)
	opt.Progress = func(what string) {
		u.do(func() {
			if gen == u.gen {
				u.lessonMode.card.SetPlan(tr("app.status.running", i18n.Args{"What": what}), true)
			}
		})
	}
	u.wg.Add(1)
	go func() {
		defer u.wg.Done()
		u.insideJobs.waitInspect() // the model runs one thing at a time
		e, err := measureSafely(ctx, m, in, opt)
		u.do(func() { u.lessonMode.lessonMeasured(gen, run, e, err) })
	}()
}

// measureSafely is lesson.Measure with a panic turned into an error.
func measureSafely(ctx context.Context, m lesson.Runner, in lesson.Input, opt lesson.MeasureOptions) (e *lesson.Extra, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	return lesson.Measure(ctx, m, in, opt)
}

// lessonMeasured tells the chapters again with the runs' figures.
func (fc *lessonMode) lessonMeasured(gen int, run *trace.Run, e *lesson.Extra, err error) {
	u := fc.ui
	if gen != u.gen {
		return
	}
	u.st.Running, u.lessonMode.measuring = false, false
	u.cancel()
	u.controls.SetRunning(false)
	switch {
	case errors.Is(err, context.Canceled):
		u.lessonMode.card.SetPlan(tr("app.lesson.stopped", nil), false)
	case err != nil:
		u.lessonMode.card.SetPlan("", false)
		u.fail(tr("app.lesson.failed", nil), err)
	default:
		u.lessonMode.extra, u.lessonMode.extraFor = e, run
		u.lessonMode.keepMeasuredRuns(run, e)
		u.lessonMode.run = nil // tell it again, with e
		u.lessonMode.tellLesson()
		u.lessonMode.goChapter(u.lessonMode.i)
	}
	u.idle()
}

// keepMeasuredRuns adds the timing runs to the history and to Timing, as
// an experiment's are kept, each named after what it measured; the run
// with the heads switched off becomes run B of the comparison, the
// lesson's run (base) its run A, as the counterfactual chapter compares them.
func (fc *lessonMode) keepMeasuredRuns(base *trace.Run, e *lesson.Extra) {
	u := fc.ui
	for _, r := range e.Runs {
		u.st.Remember(r)
		u.st.KeepTiming(r.Timing, tr("views.timing.run", i18n.Args{"N": len(u.st.Timings) + 1})+" · "+r.Origin)
	}
	s := u.st
	if n := len(e.Runs); n > 0 && e.Ablated != nil && len(e.Runs[n-1].Settings.Ablate) > 0 {
		if a := slices.Index(s.Runs, base); a >= 0 {
			b := len(s.Runs) - 1
			s.Pick(a, b, views.DescribePair(s.Runs[a], s.Runs[b], u.headBase()))
		}
	}
	u.listRuns()
	u.refreshCompare()
	u.dirty = true // Timing's new bars
	u.refreshPanels()
}

// lessonWaiting says what the card waits for.
func (fc *lessonMode) lessonWaiting() string {
	u := fc.ui
	switch {
	case u.lessonMode.err != nil:
		return tr("app.lesson.cannot", i18n.Args{"Why": u.lessonMode.err.Error()})
	case u.loading:
		return tr("app.lesson.loading", nil)
	case u.st.Running:
		return tr("app.lesson.running", nil)
	case u.backend == nil:
		return tr("app.lesson.open_model", nil)
	}
	return tr("app.lesson.press_generate", nil)
}
