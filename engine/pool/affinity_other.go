//go:build !linux

package pool

import "errors"

// allowedCPUs is unknown off Linux: workers run unpinned.
func allowedCPUs() []int { return nil }

// pinThread is not supported off Linux (macOS has only affinity hints).
func pinThread(cpu int) error { return errors.New("pool: pinning not supported on this OS") }
