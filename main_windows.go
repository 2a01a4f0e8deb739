package main

import (
	"syscall"
	"unsafe"
)

// ownConsole reports whether this process is alone on its console: the
// console window that Windows opens for a console program started from
// Explorer (a double-click). A console shared with a shell has more than
// this one process attached.
func ownConsole() bool {
	var list [4]uint32
	n, _, _ := syscall.NewLazyDLL("kernel32.dll").NewProc("GetConsoleProcessList").
		Call(uintptr(unsafe.Pointer(&list[0])), uintptr(len(list)))
	return n == 1
}

// hideOwnConsole closes the console window of a double-click: loupe.exe
// is a console program so that `loupe.exe run …` prints in cmd.exe, but
// the window alone needs no console.
func hideOwnConsole() {
	if ownConsole() {
		syscall.NewLazyDLL("kernel32.dll").NewProc("FreeConsole").Call()
	}
}
