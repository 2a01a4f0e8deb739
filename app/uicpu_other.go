//go:build !linux

package app

import "time"

// threadCPU is unknown here: the window keeps the slowest pace between
// two frames it allows when it cannot measure its own drawing.
func threadCPU() (time.Duration, bool) { return 0, false }
