//go:build !linux && !darwin

package perf

import "errors"

// PeakRSS is unknown here (neither Linux nor macOS): it returns 0.
func PeakRSS() int64 { return 0 }

// ResetPeakRSS is not supported off Linux.
func ResetPeakRSS() error { return errors.New("perf: resetting peak RSS is supported on Linux only") }
