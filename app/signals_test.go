package app

import (
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
)

// TestStopSignalEndsWork: SIGTERM during a generation cancels it and the
// window's other work at once and closes the window; a second signal
// exits with 128 + its number. The generation would take 100 s if it
// were not stopped.
func TestStopSignalEndsWork(t *testing.T) {
	h := newHarness(t, Options{})
	u := h.u
	sigs := make(chan os.Signal, 2)
	closed, exited := make(chan struct{}), make(chan int, 1)
	go watchSignals(sigs, time.Hour, u.closeAll, func() { close(closed) }, func(code int) { exited <- code })
	var steps atomic.Int32
	h.fake.delay = 10 * time.Millisecond
	h.fake.onStep = func(k int) {
		steps.Add(1)
		if k == 2 {
			sigs <- syscall.SIGTERM // the generation is under way
		}
	}
	onUI(func() {
		u.controls.Prompt.SetText("My cat is purple")
		u.controls.MaxTokens.SetText("10000")
		test.Tap(u.controls.Generate)
	})
	deadline := time.After(30 * time.Second) // generous: the machine may be loaded
	select {
	case <-closed:
	case <-deadline:
		t.Fatal("the window was not closed after SIGTERM")
	}
	workDone := make(chan struct{})
	go func() { u.wg.Wait(); close(workDone) }()
	select {
	case <-workDone:
	case <-deadline:
		t.Fatalf("the window's work still runs after SIGTERM (%d tokens written)", steps.Load())
	}
	if n := steps.Load(); n >= 10000 || u.ctx.Err() == nil {
		t.Errorf("after SIGTERM: %d tokens of 10,000 written, context %v; want the run cancelled", n, u.ctx.Err())
	}
	sigs <- syscall.SIGINT
	select {
	case code := <-exited:
		if code != 128+int(syscall.SIGINT) {
			t.Errorf("exit code %d after a second signal (SIGINT), want %d", code, 128+int(syscall.SIGINT))
		}
	case <-deadline:
		t.Fatal("a second signal did not end the process")
	}
}

// TestStopSignalExitsWhenStuck: when the window does not close after a
// stop signal (a UI goroutine that never runs the close), the process
// still exits once the grace has passed, with 128 + the signal's number.
func TestStopSignalExitsWhenStuck(t *testing.T) {
	h := newHarness(t, Options{})
	sigs := make(chan os.Signal, 1)
	exited := make(chan int, 1)
	go watchSignals(sigs, 50*time.Millisecond, h.u.closeAll, func() {}, func(code int) { exited <- code })
	sigs <- syscall.SIGTERM
	select {
	case code := <-exited:
		if code != 128+int(syscall.SIGTERM) {
			t.Errorf("exit code %d, want %d", code, 128+int(syscall.SIGTERM))
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a window that does not close kept the process alive after SIGTERM")
	}
	if h.u.ctx.Err() == nil {
		t.Error("the window's work was not cancelled")
	}
}
