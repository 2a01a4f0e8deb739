package app

import (
	"sync"
	"time"

	"loupe/engine"
)

// events holds the engine's events between two batches handed to the UI
// goroutine. The engine's goroutine adds; a batch is sent (by calling send,
// which must end with a take on the UI goroutine) at most once every
// `every`: the first event after a quiet spell goes at once, later ones
// wait for the rest of the interval. Taking on the UI goroutine keeps the
// events in order whichever goroutine asked for the batch.
type events struct {
	mu      sync.Mutex
	pending []engine.Event
	every   time.Duration
	last    time.Time   // when the last batch was sent
	timer   *time.Timer // a batch is due; nil when none
	stopped bool
	send    func()
	uiCPU   time.Duration // the UI thread's CPU time at the last pace
}

func newEvents(every time.Duration, send func()) *events {
	return &events{every: every, send: send}
}

// add queues one event and makes sure a batch is due. A batch due now is
// sent from the engine's goroutine, as each event was before batching.
func (e *events) add(ev engine.Event) {
	e.mu.Lock()
	e.pending = append(e.pending, ev)
	now := false
	if e.timer == nil && !e.stopped {
		if wait := e.every - time.Since(e.last); wait > 0 {
			e.timer = time.AfterFunc(wait, e.due)
		} else {
			e.last, now = time.Now(), true
		}
	}
	e.mu.Unlock()
	if now {
		e.send()
	}
}

// due sends the batch a timer was set for.
func (e *events) due() {
	e.mu.Lock()
	e.timer, e.last = nil, time.Now()
	stopped := e.stopped
	e.mu.Unlock()
	if !stopped {
		e.send()
	}
}

// pace sets the interval to the next batch from the UI thread's CPU time
// now (threadCPU, on the UI goroutine): what it spent since the last call
// (the last batch, and the frames it drew) times drawShare, within
// frameEvery and frameEveryMax.
func (e *events) pace(cpu time.Duration) {
	last := e.uiCPU
	e.uiCPU = cpu
	if last == 0 || cpu < last {
		return
	}
	every := min(frameEveryMax, max(frameEvery, drawShare*(cpu-last)))
	e.mu.Lock()
	e.every = every
	e.mu.Unlock()
}

// take returns the events queued so far and empties the queue.
func (e *events) take() []engine.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	b := e.pending
	e.pending = nil
	return b
}

// stop cancels the batch that is due: the caller takes the rest itself.
func (e *events) stop() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.stopped = true
	if e.timer != nil {
		e.timer.Stop()
		e.timer = nil
	}
}
