//go:build !cgo

package main

import (
	"encoding/json"
	"strings"
	"testing"

	"loupe/cli"
)

// The headless build (CGO_ENABLED=0): every command works, and the window
// (a plain launch, or window flags) is refused in one line on stderr that
// says so and lists the commands.

func TestHeadlessRefusesWindow(t *testing.T) {
	for _, args := range [][]string{nil, {"--model", "somewhere"}, {"--lesson", "--projector"}} {
		var out, errs strings.Builder
		code := dispatch(args, &out, &errs)
		msg := errs.String()
		if code == 0 || out.Len() > 0 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "has no window") {
			t.Errorf("loupe %q: exit %d, stdout %q, stderr %q; want a non-zero exit and one line on stderr", args, code, out.String(), msg)
		}
		for _, name := range cli.Names() {
			if !strings.Contains(msg, name) {
				t.Errorf("loupe %q: the refusal does not list %s: %q", args, name, msg)
			}
		}
	}
}

func TestHeadlessHelp(t *testing.T) {
	var out, errs strings.Builder
	if code := dispatch([]string{"help"}, &out, &errs); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errs.String())
	}
	if !strings.Contains(out.String(), "has no window") || strings.Contains(out.String(), "window flags") {
		t.Errorf("loupe help in the headless build:\n%s", out.String())
	}
}

// TestHeadlessRun: loupe run on the demo model built in, greedy, as JSON.
func TestHeadlessRun(t *testing.T) {
	var out, errs strings.Builder
	code := dispatch([]string{"run", "--prompt", "My cat is purple. But my friends tell me there is no such thing as a",
		"--max-tokens", "3", "--json"}, &out, &errs)
	if code != 0 {
		t.Fatalf("loupe run: exit %d, stderr %q", code, errs.String())
	}
	var r struct {
		Tokens []json.RawMessage `json:"tokens"`
		Text   string            `json:"text"`
	}
	if err := json.Unmarshal([]byte(out.String()), &r); err != nil {
		t.Fatalf("loupe run --json: %v\n%s", err, out.String())
	}
	// The demo model answers the article's sentence with « purple»
	// (assets.DemoExamples), fetched from the prompt by layer 4's heads.
	if len(r.Tokens) != 3 || !strings.HasPrefix(r.Text, " purple") {
		t.Errorf("loupe run --json: %d tokens, text %q; want 3, starting « purple»", len(r.Tokens), r.Text)
	}
}
