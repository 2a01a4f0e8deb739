//go:build cgo

package main

import (
	"strings"
	"testing"

	"loupe/engine"
)

// TestHelpWindowFlags: with the window built in, loupe help lists its
// flags; --threads 0 is said as loupe run --help says it.
func TestHelpWindowFlags(t *testing.T) {
	var out, errs strings.Builder
	if code := dispatch([]string{"help"}, &out, &errs); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs.String())
	}
	for _, want := range []string{"window flags", "-model", "-tab", "-threads", "-prompt", "-lesson-chapter", engine.ThreadsHelp} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, out.String())
		}
	}
}
