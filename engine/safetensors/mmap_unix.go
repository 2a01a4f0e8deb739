//go:build unix

package safetensors

import (
	"fmt"
	"os"
	"syscall"
)

// mapFile maps a whole file read-only and shared: the weights of a 3 GB
// model then cost page cache, not heap, and the OS shares them between runs.
// The caller has checked that size ≥ 8 (mmap refuses length 0).
func mapFile(f *os.File, size int64) ([]byte, error) {
	if int64(int(size)) != size {
		return nil, fmt.Errorf("file of %d bytes does not fit in the address space", size)
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err == nil {
		adviseHugePages(b)
	}
	return b, err
}

func unmapFile(b []byte) error { return syscall.Munmap(b) }
