//go:build !linux

package pool

// canYield is false off Linux: a waiter parks after spinFor, as it did
// before the yielding phase was measured (on Linux only).
const canYield = false

func osYield() {}
