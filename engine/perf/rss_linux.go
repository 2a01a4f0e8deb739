package perf

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
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

// parseVmHWM finds the line "VmHWM:   123456 kB" and returns 123456.
func parseVmHWM(status []byte) (kb int64, ok bool) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		rest, found := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:"))
		if !found {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0, false
		}
		n, err := strconv.ParseInt(string(f[0]), 10, 64)
		return n, err == nil
	}
	return 0, false
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
