//go:build !linux

package kernels

import "time"

// threadClock falls back to wall time where per-thread CPU time is not at hand.
func threadClock() func() time.Duration {
	start := time.Now()
	return func() time.Duration { return time.Since(start) }
}
