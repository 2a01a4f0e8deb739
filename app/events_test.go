package app

import (
	"sync"
	"testing"
	"time"

	"loupe/engine"
	"loupe/trace"
)

func tokenEvent(pos int) engine.Event { return engine.Event{Token: &trace.Token{Pos: pos}} }

// TestEventsBatches: the first event goes at once, the ones within the
// interval wait for one batch, every event comes once and in order, and
// stop leaves the rest to the caller.
func TestEventsBatches(t *testing.T) {
	var mu sync.Mutex
	var got []int
	sends := 0
	sent := make(chan struct{}, 16)
	var e *events
	e = newEvents(50*time.Millisecond, func() {
		mu.Lock()
		sends++
		for _, ev := range e.take() {
			got = append(got, ev.Token.Pos)
		}
		mu.Unlock()
		sent <- struct{}{}
	})
	e.add(tokenEvent(0))
	<-sent // at once: nothing came before
	for i := 1; i <= 5; i++ {
		e.add(tokenEvent(i)) // within the interval: one batch for all
	}
	select {
	case <-sent:
	case <-time.After(5 * time.Second):
		t.Fatal("the batch never came")
	}
	e.add(tokenEvent(6))
	e.stop() // its batch is due later: cancelled, the caller takes it
	rest := e.take()
	mu.Lock()
	defer mu.Unlock()
	if sends != 2 {
		t.Errorf("%d batches, want 2", sends)
	}
	for _, ev := range rest {
		got = append(got, ev.Token.Pos)
	}
	for i, p := range got {
		if p != i {
			t.Fatalf("events %v, want 0..6 in order", got)
		}
	}
	if len(got) != 7 {
		t.Fatalf("events %v, want 0..6", got)
	}
}

// TestEventsPace: the interval follows the UI thread's CPU per batch,
// within frameEvery and frameEveryMax.
func TestEventsPace(t *testing.T) {
	e := newEvents(frameEvery, func() {})
	e.pace(time.Second) // the first reading only starts the count
	if e.every != frameEvery {
		t.Fatalf("every %v after the first reading, want %v", e.every, frameEvery)
	}
	for _, c := range []struct{ spent, want time.Duration }{
		{time.Millisecond, frameEvery},
		{20 * time.Millisecond, drawShare * 20 * time.Millisecond},
		{time.Second, frameEveryMax},
	} {
		e.pace(e.uiCPU + c.spent)
		if e.every != c.want {
			t.Errorf("UI spent %v: every %v, want %v", c.spent, e.every, c.want)
		}
	}
}

// attnEvent is the capture of query position pos on a 28 × 12 grid.
func attnEvent(pos int) engine.Event {
	a := trace.Attention{QueryPos: pos, Weights: make([][][]float32, 28)}
	for l := range a.Weights {
		a.Weights[l] = make([][]float32, 12)
		for h := range a.Weights[l] {
			a.Weights[l][h] = make([]float32, pos+1)
		}
	}
	return engine.Event{Attention: &a}
}

// TestEventsBoundAttention: a frame that comes late does not let the queued
// captures of generated tokens grow (they would with the square of the
// answer): the oldest are dropped, the prompt's and the newest stay, and no
// capture is asked for while one waits and the next batch is far off.
func TestEventsBoundAttention(t *testing.T) {
	e := newEvents(time.Hour, func() {}) // no batch is taken during the test
	e.attnBudget, e.nPrompt, e.lastRead = 1<<20, 3, 1000
	e.add(attnEvent(2)) // the last prompt token
	if !e.wantsAttention(3) {
		t.Fatal("no capture waits, yet the first generated one is not asked for")
	}
	for pos := 3; pos < 400; pos++ {
		e.add(tokenEvent(pos))
		e.add(attnEvent(pos))
	}
	if e.wantsAttention(400) {
		t.Error("a capture just queued, yet the next one is asked for")
	}
	var kept []int
	var bytes int64
	for _, ev := range e.take() {
		if ev.Attention != nil {
			kept = append(kept, ev.Attention.QueryPos)
			if ev.Attention.QueryPos >= 3 {
				bytes += ev.Attention.Bytes()
			}
		}
	}
	newest := attnEvent(399).Attention.Bytes()
	if len(kept) < 2 || kept[0] != 2 || kept[len(kept)-1] != 399 || bytes > 1<<20+newest {
		t.Errorf("kept captures %v weighing %d bytes (budget %d + the newest)", kept, bytes, 1<<20)
	}
	if !e.wantsAttention(400) {
		t.Error("the queue was taken, yet the next capture is not asked for")
	}
}

// TestEventsAskAttentionBeforeTheBatch: while a capture waits, the next
// one is asked for only when the batch it would join is due within two
// steps, so that the frame shows a token near the newest, not one capture
// a token.
func TestEventsAskAttentionBeforeTheBatch(t *testing.T) {
	e := newEvents(time.Hour, func() {})
	e.attnBudget, e.nPrompt, e.lastRead = 1<<20, 3, 1000
	e.add(tokenEvent(3)) // the first event sends at once: no timer
	e.take()
	e.add(tokenEvent(4)) // a batch is due in an hour
	e.add(attnEvent(4))
	if e.timer == nil {
		t.Fatal("no batch is due after an event")
	}
	e.wantsAttention(5)
	if e.wantsAttention(6) {
		t.Error("a capture waits and the batch is an hour away, yet the next one is asked for")
	}
	e.mu.Lock()
	e.due = time.Now() // the batch is due now
	e.mu.Unlock()
	if !e.wantsAttention(7) {
		t.Error("the batch is due, yet the capture it would show is not asked for")
	}
	if !e.wantsAttention(e.lastRead) {
		t.Error("a position the finished run reads back is not asked for")
	}
	e.stop()
}
