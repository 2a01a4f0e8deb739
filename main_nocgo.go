//go:build !cgo

package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"loupe/cli"
)

// openWindow refuses in one line: built without cgo, loupe has no window
// (Fyne's OpenGL driver is C), only its commands. Started by a
// double-click on Windows, the console it prints in would close at once:
// it waits for Enter there.
func openWindow(_ []string, stderr io.Writer) int {
	fmt.Fprintln(stderr, noWindowMessage())
	if ownConsole() {
		fmt.Fprint(stderr, "Press Enter to close.")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	}
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
