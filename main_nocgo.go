//go:build !cgo

package main

import (
	"fmt"
	"io"
	"strings"

	"loupe/cli"
)

// openWindow refuses in one line: built without cgo, loupe has no window
// (Fyne's OpenGL driver is C), only its commands.
func openWindow(_ []string, stderr io.Writer) int {
	fmt.Fprintln(stderr, noWindowMessage())
	return 2
}

// noWindowMessage says that this build has no window and which commands
// it has.
func noWindowMessage() string {
	return "loupe: this build has no window (built without cgo); its commands: " +
		strings.Join(cli.Names(), ", ") + " (loupe help COMMAND)"
}

// printWindowHelp says where the window's flags went (loupe help).
func printWindowHelp(w io.Writer) {
	fmt.Fprintln(w, "\nThis build has no window (built without cgo): the commands above are all it has.")
}
