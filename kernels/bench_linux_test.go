//go:build linux

package kernels

import (
	"runtime"
	"syscall"
	"time"
	"unsafe"
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

// threadCPU reads CLOCK_THREAD_CPUTIME_ID (nanoseconds; getrusage counts
// in scheduler ticks, too coarse for short benchmarks).
func threadCPU() time.Duration {
	const clockThreadCPUTime = 3
	var ts syscall.Timespec
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}
