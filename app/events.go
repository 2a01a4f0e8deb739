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
	due     time.Time   // when the timer fires
	stopped bool
	send    func()
	uiCPU   time.Duration // the UI thread's CPU time at the last pace

	// The queued attention captures of generated positions (from
	// nPrompt on) weigh at most attnBudget bytes (> 0) besides the newest:
	// older ones are dropped from the queue, which a slow frame would
	// otherwise fill with megabytes a token (see trace.TrimAttention).
	attnBudget int64
	nPrompt    int
	attnQueued []int // indices in pending of the generated captures queued, oldest first
	attnBytes  int64
	lastRead   int       // the last position the run reads back when it writes max tokens
	askedAt    time.Time // when the engine last asked wantsAttention (once a decode step)
}

// wantsAttention tells the engine whether to capture the attention of the
// next generated token (AttnCapture.GeneratedIf): yes when none is waiting
// for the next frame, when the next batch is due within two steps (the
// last step's time), and for the last positions a run of max tokens
// reads, whose attention the window shows when the run ends (the token
// the selection follows). A frame shows the newest capture only; copying
// L·H·(pos+1) floats of every token (4 MB a token at position 3,000 on a
// 28 × 12 model) would cost the engine time and the process memory for
// nothing. A capture every 100 ms, as before, was every token wherever
// decode runs under 10 tok/s (the 1.5B shape on 2 cores: 5 tok/s, ten
// captures a frame); now it is two or three a frame at any rate.
func (e *events) wantsAttention(pos int) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := time.Now()
	step := now.Sub(e.askedAt)
	e.askedAt = now
	soon := e.timer != nil && e.due.Sub(now) <= 2*step
	return len(e.attnQueued) == 0 || soon || pos >= e.lastRead
}

func newEvents(every time.Duration, send func()) *events {
	return &events{every: every, send: send}
}

// add queues one event and makes sure a batch is due. A batch due now is
// sent from the engine's goroutine, as each event was before batching.
func (e *events) add(ev engine.Event) {
	e.mu.Lock()
	e.pending = append(e.pending, ev)
	e.boundAttention()
	now := false
	if e.timer == nil && !e.stopped {
		if wait := e.every - time.Since(e.last); wait > 0 {
			e.timer, e.due = time.AfterFunc(wait, e.fire), time.Now().Add(wait)
		} else {
			e.last, now = time.Now(), true
		}
	}
	e.mu.Unlock()
	if now {
		e.send()
	}
}

// boundAttention drops the oldest queued captures of generated positions
// while they weigh more than attnBudget; the newest stays. Called with mu
// held after an event was queued.
func (e *events) boundAttention() {
	a := e.pending[len(e.pending)-1].Attention
	if e.attnBudget <= 0 || a == nil || a.QueryPos < e.nPrompt {
		return
	}
	e.attnQueued = append(e.attnQueued, len(e.pending)-1)
	e.attnBytes += a.Bytes()
	for e.attnBytes > e.attnBudget && len(e.attnQueued) > 1 {
		old := &e.pending[e.attnQueued[0]]
		e.attnBytes -= old.Attention.Bytes()
		old.Attention = nil // an empty event: onEvent skips it
		e.attnQueued = e.attnQueued[1:]
	}
}

// fire sends the batch a timer was set for.
func (e *events) fire() {
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
	e.pending, e.attnQueued, e.attnBytes = nil, nil, 0
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
