// Command loupe is a desktop app that runs a language model on the CPU and
// shows what happens inside while it answers. With a subcommand as first
// argument (run, tokenize, gen-model, bench, membw, …) it works headless.
//
// The window needs cgo (Fyne's OpenGL driver): main_cgo.go opens it.
// Built with CGO_ENABLED=0, loupe has every command but the window, and
// main_nocgo.go says so.
package main

import (
	"fmt"
	"io"
	"os"

	"loupe/cli"
)

func main() { os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr)) }

// dispatch runs loupe with args (without the program name): help, a
// subcommand, or else the window.
func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch a := args[0]; {
		case isHelp(a):
			return help(args[1:], stdout)
		case cli.Has(a):
			return cli.Main(args, stdout, stderr)
		}
	}
	return openWindow(args, stderr)
}

func isHelp(a string) bool { return a == "help" || a == "-h" || a == "-help" || a == "--help" }

// help answers loupe help, --help and -h on stdout: the subcommands and the
// window's flags; loupe help COMMAND is that command's usage.
func help(args []string, stdout io.Writer) int {
	if len(args) > 0 && cli.Has(args[0]) {
		return cli.Main([]string{args[0], "--help"}, stdout, stdout) // help is asked for: all of it on stdout
	}
	cli.Usage(stdout)
	fmt.Fprintln(stdout, "\n  loupe help COMMAND (or loupe COMMAND --help) lists a command's flags.")
	printWindowHelp(stdout)
	return 0
}
