//go:build !linux

package perf

// machineBusySeconds is unknown outside Linux.
func machineBusySeconds() (float64, bool) { return 0, false }
