//go:build cgo

package main

import (
	"fmt"
	"io"

	"loupe/app"
)

// openWindow opens the window with args as its flags.
func openWindow(args []string, _ io.Writer) int {
	hideOwnConsole()
	return app.Main(args)
}

// printWindowHelp lists the window's flags (loupe help).
func printWindowHelp(w io.Writer) {
	fmt.Fprintln(w, "\nwindow flags (loupe with no command opens the window):")
	app.PrintFlags(w)
}
