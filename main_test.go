package main

import (
	"strings"
	"testing"

	"loupe/cli"
	"loupe/engine"
)

// TestHelp: loupe help, --help and -h list the subcommands on stdout and
// succeed, in every build.
func TestHelp(t *testing.T) {
	for _, a := range []string{"help", "--help", "-h", "-help"} {
		var out, errs strings.Builder
		if code := dispatch([]string{a}, &out, &errs); code != 0 || errs.Len() > 0 {
			t.Fatalf("loupe %s: exit %d, stderr %q", a, code, errs.String())
		}
		for _, want := range []string{"run ", "gen-model", "bench", "lesson", "loupe help COMMAND"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("loupe %s lacks %q:\n%s", a, want, out.String())
			}
		}
	}
}

// TestHelpCommand: loupe help COMMAND and loupe COMMAND --help print the
// command's usage, what it does and its flags on stdout, and succeed.
func TestHelpCommand(t *testing.T) {
	for _, name := range cli.Names() {
		for _, args := range [][]string{{"help", name}, {name, "--help"}, {name, "-h"}} {
			var out, errs strings.Builder
			code := dispatch(args, &out, &errs)
			if code != 0 || errs.Len() > 0 || !strings.HasPrefix(out.String(), "usage: loupe "+name) {
				t.Errorf("loupe %s: exit %d, stderr %q, stdout %q", strings.Join(args, " "), code, errs.String(), out.String())
			}
		}
	}
	var out, errs strings.Builder
	if code := dispatch([]string{"help", "run"}, &out, &errs); code != 0 || !strings.Contains(out.String(), "-max-tokens") ||
		!strings.Contains(out.String(), engine.ThreadsHelp) {
		t.Errorf("loupe help run: exit %d, %q", code, out.String())
	}
}
