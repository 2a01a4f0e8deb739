package app

import (
	"context"
	"fmt"
	"sync"

	"loupe/engine"
	"loupe/trace"
)

// serialDo, when set (the app tests), makes u.do run its callbacks one at
// a time: Fyne's test driver runs fyne.Do on the caller's goroutine, where
// the real one queues them all on the UI goroutine.
var serialDo *sync.Mutex

// inspectJobs turns the background jobs on. The app tests turn them off
// (TestMain) except where they test them: under Fyne's test driver the
// tests touch widgets from their own goroutine, which a job's result
// arriving through fyne.Do at an unexpected moment would race.
var inspectJobs = true

// startJob runs key in the background unless it runs or has run.
func (fc *insideJobs) startJob(key jobKey) {
	u := fc.ui
	if !inspectJobs {
		return
	}
	insp, ok := u.backend.(Inspector)
	fc.mu.Lock()
	busy := fc.cancel != nil
	fc.mu.Unlock()
	if !ok || key.run == nil || u.st.Running || u.loading || busy && key == fc.pending || key == fc.shown {
		return
	}
	ids := make([]int, len(u.st.Tokens))
	for i, t := range u.st.Tokens {
		ids[i] = t.ID
	}
	u.insideJobs.waitInspect()
	ctx, cancel := context.WithCancel(u.ctx)
	done, ended := make(chan struct{}), make(chan struct{})
	fc.mu.Lock()
	fc.cancel, fc.done, fc.ended = cancel, done, ended
	fc.mu.Unlock()
	fc.pending = key
	u.wg.Add(1)
	go func() {
		defer u.wg.Done()
		defer close(ended)
		res, rows, err := runJob(ctx, insp, ids, key)
		close(done) // the model is free: waitInspect returns; the result follows (a stale one is dropped)
		u.do(func() { u.insideJobs.jobDone(key, res, rows, err) })
	}()
}

// runJob is the work of one job, off the UI goroutine: Inspect at key.pos
// (or, for the KV rows of a cache that no longer holds the run, at the
// last position), then the rows of the chosen layer and KV head.
func runJob(ctx context.Context, insp Inspector, ids []int, key jobKey) (res *trace.Inspection, rows trace.KVRows, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error in the engine: %v", r)
		}
	}()
	pos := key.pos
	if pos < 0 && insp.CachedTokens() < len(ids)-1 && len(ids) > 1 {
		pos = len(ids) - 2 // the last token is never read by the run: its keys are not cached
	}
	if pos >= 0 {
		res, err = insp.Inspect(ctx, ids, pos, inspectOptions(key))
		if err != nil {
			return nil, rows, err
		}
	}
	return res, insp.KVRows(key.layer, key.kvHead, insp.CachedTokens()), nil
}

// inspectOptions recomputes a position as the run computed it: an MoE
// run with experts switched off or a smaller top-k routes the same way
// in the panels, or they would show the model left alone.
func inspectOptions(key jobKey) engine.InspectOptions {
	opt := engine.InspectOptions{Layer: key.layer, KVHead: key.kvHead}
	if key.run != nil {
		opt.DisableExperts, opt.TopKExperts = key.run.Settings.DisableExperts, key.run.Settings.TopKExperts
	}
	return opt
}

// jobDone keeps a finished job's results and redraws.
func (fc *insideJobs) jobDone(key jobKey, res *trace.Inspection, rows trace.KVRows, err error) {
	u := fc.ui
	if key != fc.pending || ctxErr(err) {
		return
	}
	fc.mu.Lock()
	fc.cancel, fc.done = nil, nil // finished: nothing to wait for
	fc.mu.Unlock()
	fc.pending.pos = -2
	fc.shown, fc.err, fc.rows = key, err, rows
	if res != nil && key.pos >= 0 {
		fc.result = res
	}
	u.dirty = true
	u.refreshPanels()
}

func ctxErr(err error) bool {
	return err != nil && (err == context.Canceled || err == context.DeadlineExceeded)
}

// waitInspect cancels the running job, if any, and waits for it: the
// engine answers within one layer. Safe from any goroutine.
func (fc *insideJobs) waitInspect() {
	fc.mu.Lock()
	cancel, done := fc.cancel, fc.done
	fc.cancel, fc.done = nil, nil
	fc.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// forgetInspect drops what was computed (another model, or a new run).
func (fc *insideJobs) forgetInspect() {
	u := fc.ui
	u.insideJobs.waitInspect()
	fc.result, fc.rows, fc.err = nil, trace.KVRows{}, nil
	fc.pending, fc.shown = jobKey{pos: -2}, jobKey{pos: -2}
}

// inspectBusy reports whether a job runs or its result is on its way.
func (fc *insideJobs) inspectBusy() bool {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	return fc.cancel != nil
}
