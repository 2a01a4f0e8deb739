// Command loupe is a desktop app that runs a language model on the CPU and
// shows what happens inside while it answers. With a subcommand as first
// argument (run, tokenize, gen-model, bench, membw) it works headless.
package main

import (
	"fmt"
	"io"
	"os"

	"loupe/app"
	"loupe/cli"
)

func main() {
	if len(os.Args) > 1 {
		switch a := os.Args[1]; {
		case isHelp(a):
			os.Exit(help(os.Args[2:], os.Stdout, os.Stderr))
		case cli.Has(a):
			os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
		}
	}
	hideOwnConsole()
	os.Exit(app.Main(os.Args[1:]))
}

func isHelp(a string) bool { return a == "help" || a == "-h" || a == "-help" || a == "--help" }

// help answers loupe help, --help and -h on stdout: the subcommands and the
// window's flags; loupe help COMMAND is that command's flags.
func help(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && cli.Has(args[0]) {
		return cli.Main([]string{args[0], "--help"}, stdout, stdout) // help is asked for: all of it on stdout
	}
	cli.Usage(stdout)
	fmt.Fprintln(stdout, "\n  loupe help COMMAND (or loupe COMMAND --help) lists a command's flags.\n\nwindow flags (loupe with no command opens the window):")
	app.PrintFlags(stdout)
	return 0
}
