// Command loupe is a desktop app that runs a language model on the CPU and
// shows what happens inside while it answers. With a subcommand as first
// argument (run, tokenize, gen-model, bench, membw) it works headless.
package main

import (
	"os"

	"loupe/app"
	"loupe/cli"
)

func main() {
	if len(os.Args) > 1 && (cli.Has(os.Args[1]) || os.Args[1] == "help") {
		os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	hideOwnConsole()
	os.Exit(app.Main(os.Args[1:]))
}
