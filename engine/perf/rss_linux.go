package perf

import (
	"fmt"
	"os"
	"syscall"
)

// PeakRSS returns the process's peak resident set in bytes: VmHWM from
// /proc/self/status, or getrusage's ru_maxrss (KiB on Linux) if /proc is
// unreadable.
func PeakRSS() int64 {
	if data, err := os.ReadFile("/proc/self/status"); err == nil {
		if kb, ok := parseVmHWM(data); ok {
			return kb * 1024
		}
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Maxrss * 1024
}

// ResetPeakRSS sets the peak back to the current resident set (Linux ≥ 4.0:
// writing 5 to clear_refs), so a bench that ran the 1 GiB bandwidth probe
// first reports the model's peak, not the probe's.
func ResetPeakRSS() error {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return fmt.Errorf("perf: resetting peak RSS: %w", err)
	}
	return nil
}
