package perf

import (
	"errors"
	"syscall"
)

// PeakRSS returns the process's peak resident set in bytes from getrusage
// (ru_maxrss is in bytes on macOS).
func PeakRSS() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Maxrss
}

// ResetPeakRSS is not supported on macOS.
func ResetPeakRSS() error { return errors.New("perf: resetting peak RSS is supported on Linux only") }
