//go:build cgo && !windows

package main

// hideOwnConsole is Windows-only (main_windows.go).
func hideOwnConsole() {}
