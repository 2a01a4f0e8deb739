//go:build cgo

package main

import (
	"syscall"
	"unsafe"
)

// hideOwnConsole closes the console window that Windows opens for a
// console program started from Explorer (a double-click): loupe.exe is a
// console program so that `loupe.exe run …` prints in cmd.exe, but the
// window alone needs no console. A console shared with a shell (more than
// this one process attached) is left alone.
func hideOwnConsole() {
	k := syscall.NewLazyDLL("kernel32.dll")
	var list [4]uint32
	n, _, _ := k.NewProc("GetConsoleProcessList").Call(uintptr(unsafe.Pointer(&list[0])), uintptr(len(list)))
	if n == 1 {
		k.NewProc("FreeConsole").Call()
	}
}
