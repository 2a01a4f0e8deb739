//go:build !windows

package engine

// memAvailableOS is used where /proc/meminfo is missing (macOS, BSDs):
// unknown, so the memory checks are skipped there.
func memAvailableOS() int64 { return 0 }
