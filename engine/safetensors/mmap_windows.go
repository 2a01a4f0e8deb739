//go:build windows

package safetensors

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// mapFile maps a whole file read-only, as mmap does on unix: a view of a
// file mapping (CreateFileMapping + MapViewOfFile), so the weights of a
// 3 GB model cost the file cache, not the heap. Large pages are not asked
// for: Windows gives them only to locked, privileged allocations.
func mapFile(f *os.File, size int64) ([]byte, error) {
	if int64(int(size)) != size {
		return nil, fmt.Errorf("file of %d bytes does not fit in the address space", size)
	}
	h, err := syscall.CreateFileMapping(syscall.Handle(f.Fd()), nil, syscall.PAGE_READONLY,
		uint32(uint64(size)>>32), uint32(size), nil)
	if err != nil {
		return nil, fmt.Errorf("CreateFileMapping: %w", err)
	}
	addr, err := syscall.MapViewOfFile(h, syscall.FILE_MAP_READ, 0, 0, uintptr(size))
	syscall.CloseHandle(h) // the view keeps the mapping alive
	if err != nil {
		return nil, fmt.Errorf("MapViewOfFile: %w", err)
	}
	// addr is memory the OS owns, outside Go's heap; read it as a pointer.
	p := *(*unsafe.Pointer)(unsafe.Pointer(&addr))
	return unsafe.Slice((*byte)(p), size), nil
}

func unmapFile(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return syscall.UnmapViewOfFile(uintptr(unsafe.Pointer(&b[0])))
}
