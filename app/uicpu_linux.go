package app

import (
	"syscall"
	"time"
)

// threadCPU is the CPU time the calling OS thread has used. Called on the
// UI goroutine, which Fyne's driver locks to the main thread, it is the
// window's own drawing: layout, text, the GL calls.
func threadCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
