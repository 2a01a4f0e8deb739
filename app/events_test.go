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
