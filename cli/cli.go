// Package cli holds Loupe's headless subcommands: run, inspect, lesson,
// tokenize, pull and models, gen-model, bench, sweep, membw, stop-latency
// (and busy, bench's competing load). Each command lives in its own file
// and registers itself in init; main hands over here when the first
// argument names a command, and `loupe help` lists them.
package cli

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// Command is one subcommand.
type Command struct {
	Name    string
	Summary string
	// Run parses args (without the command name) and does the work, writing
	// results to stdout and diagnostics to stderr. It returns the exit code.
	Run func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]Command{}

func register(c Command) { commands[c.Name] = c }

// Has reports whether name is a subcommand.
func Has(name string) bool { _, ok := commands[name]; return ok }

// Main runs the subcommand named by args[0] and returns its exit code.
func Main(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "loupe: internal error: %v\n", r)
			code = 70
		}
	}()
	if len(args) == 0 || !Has(args[0]) {
		Usage(stderr)
		return 2
	}
	return commands[args[0]].Run(args[1:], stdout, stderr)
}

// Usage lists the subcommands.
func Usage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s [--model PATH] [--prompt TEXT] [--generate]   (opens the window)\n", os.Args[0])
	fmt.Fprintf(w, "       %s COMMAND [flags]\n\ncommands:\n", os.Args[0])
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].Summary)
	}
}
