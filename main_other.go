//go:build !windows

package main

// ownConsole and hideOwnConsole are Windows-only (main_windows.go).
func ownConsole() bool { return false }
func hideOwnConsole()  {}
