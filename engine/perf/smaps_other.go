//go:build !linux

package perf

func readSmaps() []byte { return nil }
