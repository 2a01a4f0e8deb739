package app

import (
	"os"
	"syscall"
	"time"
)

// stopSignals are the requests to stop the process: SIGINT (Ctrl+C in the
// terminal that started the window) and SIGTERM (a logout, a kill, a
// test harness). Fyne's driver quits on them too, but only once its UI
// goroutine gets to it; the window's work must not wait for that.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// signalGrace bounds the time from a stop signal to the process's exit:
// the toolkit's quitGrace, then shutdown's wait for the background
// goroutines (3 s).
const signalGrace = quitGrace + 4*time.Second

// watchSignals waits for a stop signal, then calls stop (the window's
// closeAll: it cancels the generation, the Inspect jobs, the probes and
// the timing runs, which check their context between tokens) and closes
// the window, whose closing ends ShowAndRun. If the
// process has not ended grace later (a toolkit stuck in its closing), or
// a second signal comes, exit ends it with 128 + the signal's number, as
// a shell reports a kill.
func watchSignals(sigs <-chan os.Signal, grace time.Duration, stop, closeWindow func(), exit func(code int)) {
	sig, ok := <-sigs
	if !ok {
		return
	}
	stop()
	closeWindow()
	select {
	case s, ok := <-sigs:
		if ok {
			sig = s
		}
	case <-time.After(grace):
	}
	exit(128 + signalNumber(sig))
}

// signalNumber is sig's number (15 for SIGTERM), 2 for a signal that has none.
func signalNumber(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return int(s)
	}
	return 2
}
