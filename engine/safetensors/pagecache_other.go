//go:build !linux

package safetensors

import "os"

func adviseHugePages(b []byte) {}

func dropCached(f *os.File) error { return nil }
