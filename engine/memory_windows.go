package engine

import (
	"syscall"
	"unsafe"
)

// memoryStatusEx is MEMORYSTATUSEX of the Windows API.
type memoryStatusEx struct {
	length, memoryLoad                      uint32
	totalPhys, availPhys                    uint64
	totalPageFile, availPageFile            uint64
	totalVirtual, availVirtual, availExtVir uint64
}

var globalMemoryStatusEx = syscall.NewLazyDLL("kernel32.dll").NewProc("GlobalMemoryStatusEx")

// memAvailableOS is the physical memory available (GlobalMemoryStatusEx).
func memAvailableOS() int64 {
	var s memoryStatusEx
	s.length = uint32(unsafe.Sizeof(s))
	if r, _, _ := globalMemoryStatusEx.Call(uintptr(unsafe.Pointer(&s))); r == 0 {
		return 0
	}
	return int64(s.availPhys)
}
