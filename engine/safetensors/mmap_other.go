//go:build !unix && !windows

package safetensors

import (
	"io"
	"os"
)

// mapFile reads the whole file into memory where there is no mmap.
func mapFile(f *os.File, size int64) ([]byte, error) {
	b := make([]byte, size)
	_, err := io.ReadFull(f, b)
	return b, err
}

func unmapFile(b []byte) error { return nil }
