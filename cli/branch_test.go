package cli

import (
	"strconv"
	"strings"
	"testing"
)

// --branch-at/--branch-token force one written token of a greedy run;
// the tokens before it are the original run's.
func TestRunBranch(t *testing.T) {
	dir := tinyDir(t)
	args := []string{"--model", dir, "--prompt", "Once upon a time", "--max-tokens", "6"}
	orig := runJSONOut(t, args...)
	forced := orig.Tokens[2].Top10[3].ID
	br := runJSONOut(t, append(args, "--branch-at", "2", "--branch-token", itoa(forced))...)
	if br.Branch == nil || br.Branch.At != 2 || br.Branch.Token != forced {
		t.Fatalf("branch %+v", br.Branch)
	}
	for i := range 2 {
		if br.Tokens[i].ID != orig.Tokens[i].ID {
			t.Fatalf("token %d before the branch: %d, the original wrote %d", i, br.Tokens[i].ID, orig.Tokens[i].ID)
		}
	}
	if br.Tokens[2].ID != forced || br.Tokens[2].P != orig.Tokens[2].Top10[3].P {
		t.Fatalf("branch token %+v, want id %d p %v", br.Tokens[2], forced, orig.Tokens[2].Top10[3].P)
	}
	for _, bad := range [][]string{
		{"--branch-at", "2"},
		{"--branch-token", "5"},
		{"--branch-at", "6", "--branch-token", "5"},
		{"--branch-at", "1", "--branch-token", "-3"},
		{"--branch-at", "1", "--branch-token", "5", "--temperature", "0.7"},
		{"--branch-at", "1", "--branch-token", "999999"},
	} {
		code, _, errs := runCLI(append(args, bad...)...)
		if code == 0 || !strings.Contains(errs, "branch") {
			t.Errorf("%v: exit %d, stderr %q", bad, code, errs)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
