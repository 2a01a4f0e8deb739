//go:build windows

package hub

import (
	"os"
	"syscall"
	"unsafe"
)

var (
	kernel32            = syscall.NewLazyDLL("kernel32.dll")
	procLockFileEx      = kernel32.NewProc("LockFileEx")
	procUnlockFileEx    = kernel32.NewProc("UnlockFileEx")
	procGetDiskFreeSpEx = kernel32.NewProc("GetDiskFreeSpaceExW")
)

const (
	lockfileExclusiveLock   = 2
	lockfileFailImmediately = 1
	errorLockViolation      = 33
)

// tryLock takes an exclusive LockFileEx on f's first byte without waiting
// (what Python's filelock does on Windows); held says another process has it.
func tryLock(f *os.File) (held bool, err error) {
	var ov syscall.Overlapped
	r, _, e := procLockFileEx.Call(f.Fd(), lockfileExclusiveLock|lockfileFailImmediately, 0, 1, 0,
		uintptr(unsafe.Pointer(&ov)))
	if r != 0 {
		return false, nil
	}
	if e == syscall.Errno(errorLockViolation) {
		return true, nil
	}
	return false, e
}

func unlockFile(f *os.File) {
	var ov syscall.Overlapped
	procUnlockFileEx.Call(f.Fd(), 0, 1, 0, uintptr(unsafe.Pointer(&ov)))
}

// freeBytes is the space the user can still write under dir.
func diskFree(dir string) (int64, bool) {
	p, err := syscall.UTF16PtrFromString(dir)
	if err != nil {
		return 0, false
	}
	var avail uint64
	r, _, _ := procGetDiskFreeSpEx.Call(uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(&avail)), 0, 0)
	return int64(avail), r != 0
}
