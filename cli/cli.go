// Package cli holds Loupe's headless subcommands: run, inspect, lesson,
// tokenize, pull and models, gen-model, bench, sweep, membw, stop-latency
// (and busy, bench's competing load). Each command lives in its own file
// and registers itself in init; main hands over here when the first
// argument names a command, and `loupe help` lists them.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Command is one subcommand.
type Command struct {
	Name    string
	Summary string
	// Usage is the head of COMMAND --help: its synopsis, then what it
	// does; the flags follow it (parseFlags).
	Usage string
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

// Names lists the subcommands, sorted.
func Names() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Usage lists the subcommands.
func Usage(w io.Writer) {
	fmt.Fprint(w, "usage: loupe COMMAND [flags]\n\ncommands:\n")
	for _, n := range Names() {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].Summary)
	}
}

// parseFlags parses a command's arguments into fs and prints nothing of
// its own: a bad flag comes back as an error for the command to print on
// one line, and -h, -help or --help writes the command's help on help
// (the command's Usage, then fs's flags) and returns flag.ErrHelp, which
// the command answers with exit status 0.
func parseFlags(fs *flag.FlagSet, args []string, help io.Writer) error {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		writeHelp(help, fs)
	}
	return err
}

// writeHelp writes COMMAND --help: the command's Usage (fs.Name() names
// the command), then its flags as the flag package lists them.
func writeHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, strings.TrimRight(commands[fs.Name()].Usage, "\n")+"\n")
	has := false
	fs.VisitAll(func(*flag.Flag) { has = true })
	if !has {
		return
	}
	fmt.Fprintln(w, "\nflags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// flagExit is a command's exit status for a parseFlags error: 0 after
// --help, else 2 with the error on one line of stderr.
func flagExit(err error, name string, stderr io.Writer) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "loupe %s: %v\n", name, err)
	return 2
}
