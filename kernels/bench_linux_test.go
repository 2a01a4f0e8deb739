//go:build linux

package kernels

import (
	"runtime"
	"syscall"
	"time"
)

// threadClock pins the goroutine to its thread and returns a function that
// reports the CPU time the thread has used since. Figures per core stay
// meaningful on a shared, oversubscribed machine, where wall time counts
// the time other processes held the core.
func threadClock() func() time.Duration {
	runtime.LockOSThread()
	start := threadCPU()
	return func() time.Duration {
		d := threadCPU() - start
		runtime.UnlockOSThread()
		return d
	}
}

func threadCPU() time.Duration {
	const rusageThread = 1 // RUSAGE_THREAD
	var ru syscall.Rusage
	if syscall.Getrusage(rusageThread, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
