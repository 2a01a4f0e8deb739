//go:build unix

package tokenizer

import (
	"syscall"
	"time"
)

// processCPU is the user+system CPU time of the process so far. The
// benchmarks report it per op beside the wall time, which a busy shared
// machine inflates.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
