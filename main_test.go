package main

import (
	"strings"
	"testing"
)

// TestHelp: loupe help, --help and -h list the subcommands and the
// window's flags on stdout and succeed.
func TestHelp(t *testing.T) {
	for _, a := range []string{"help", "--help", "-h", "-help"} {
		if !isHelp(a) {
			t.Errorf("%s is not help", a)
		}
	}
	var out, errs strings.Builder
	if code := help(nil, &out, &errs); code != 0 || errs.Len() > 0 {
		t.Fatalf("exit %d, stderr %q", code, errs.String())
	}
	for _, want := range []string{"run ", "gen-model", "bench", "window flags", "-model", "-tab", "-threads", "-prompt"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := help([]string{"run"}, &out, &errs); code != 0 || !strings.Contains(out.String()+errs.String(), "-max-tokens") {
		t.Errorf("loupe help run: exit %d, %q", code, out.String()+errs.String())
	}
}
