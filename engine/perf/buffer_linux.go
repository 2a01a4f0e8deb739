package perf

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// allocBuffer maps words × 8 bytes of anonymous memory outside the Go heap,
// so free gives it back to the OS at once (the GC would keep the buffer around,
// and inflate the peak RSS a bench reports after the probe).
func allocBuffer(words int64) (buf []uint64, free func(), err error) {
	b, err := unix.Mmap(-1, 0, int(words*8), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil, nil, err
	}
	// Huge pages where the kernel gives them (THP "madvise" mode): the
	// model's weights are mapped with them too (safetensors asks the same),
	// and a probe on 4 KiB pages would read slower than the engine can.
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
	buf = unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), words)
	return buf, func() { _ = unix.Munmap(b) }, nil
}
