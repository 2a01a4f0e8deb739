package app

import (
	"path/filepath"
	"strings"
	"testing"

	"loupe/engine/genmodel"
	"loupe/views"
)

// A branch from the Next token panel: the new run keeps the written
// tokens before the step, writes the picked candidate there, and is the
// last run of the session.
func TestBranchFromToken(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := genmodel.Write(dir, "tiny", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	h := engineHarness(t, dir)
	u := h.u
	var failed error
	var hinted []string
	u.onFail = func(_ string, err error) { failed = err }
	u.onInform = func(title, what string) { hinted = append(hinted, title+": "+what) }
	onUI(u.branchDialog)
	// Before a run the branch gives a hint, told as information under the
	// action's title: the user did nothing wrong.
	if failed != nil || len(hinted) != 1 || !strings.HasPrefix(hinted[0], "Branch from a token: Generate first") {
		t.Fatalf("a branch before any run: error %v, hints %q; want one hint and no error", failed, hinted)
	}
	h.generate("Once upon a time", 6)
	orig := u.st.LastRun
	nPrompt := len(orig.Tokens) - len(orig.Steps)
	onUI(func() { u.selectQuery(nPrompt + 2) }) // written token 3
	s, at, err := u.branchStep()
	if err != nil || at != 2 {
		t.Fatalf("step %+v at %d, err %v", s, at, err)
	}
	forced := s.Top[3].ID
	onUI(func() { u.branchFrom(at, forced) })
	h.wait()
	br := u.st.LastRun
	if br == orig || br.Settings.Branch == nil || br.Settings.Branch.At != 2 || br.Steps[2].Chosen.ID != forced {
		t.Fatalf("branch run %+v, step 2 %+v", br.Settings.Branch, br.Steps[2].Chosen)
	}
	for i := range 2 {
		if br.Steps[i].Chosen.ID != orig.Steps[i].Chosen.ID {
			t.Fatalf("written token %d changed before the branch", i+1)
		}
	}
	if c := u.st; c.A < 0 || c.Runs[c.A] != orig || c.Runs[c.B] != br || !strings.Contains(c.Kind, "written token 3") {
		t.Errorf("Compare pair %d, %d (%q): want the original and the branch", c.A, c.B, c.Kind)
	}
	if u.st.Query != br.Steps[2].Pos {
		t.Errorf("selected position %d, want the branch's step at %d", u.st.Query, br.Steps[2].Pos)
	}
	if u.next.Branch.Disabled() {
		t.Error("the Next token panel offers no branch after a run")
	}
}

// Chosen again from the history, a branch and its original compare from
// the branch step; the history and the pair's sentence name the branch.
func TestBranchComparedFromHistory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := genmodel.Write(dir, "tiny", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	h := engineHarness(t, dir)
	u := h.u
	h.generate("Once upon a time", 6)
	orig := u.st.LastRun
	nPrompt := len(orig.Tokens) - len(orig.Steps)
	forced := orig.Steps[3].Top[2].ID
	onUI(func() { u.branchFrom(3, forced) })
	h.wait()
	br := u.st.LastRun
	h.generate("Once upon a time", 6) // a third run: the pair moves to it
	onUI(func() { u.pickRuns(0, 2); u.pickRuns(0, 1) })
	if u.st.Query != nPrompt+3 {
		t.Errorf("the stream selects position %d, want the branch step %d", u.st.Query, nPrompt+3)
	}
	cmp, ok := u.compare.Comparison()
	if !ok || cmp.B != br || cmp.Delta.Pos != nPrompt+3 || !cmp.Delta.Diverged {
		t.Fatalf("Compare %v at position %d (diverged %v), want the branch step %d", ok, cmp.Delta.Pos, cmp.Delta.Diverged, nPrompt+3)
	}
	if l := views.RunLabel(1, br, 0); !strings.Contains(l, "branch at written token 4") {
		t.Errorf("history label %q", l)
	}
	if !strings.Contains(u.st.Kind, "a forced token") || !strings.Contains(u.st.Kind, "at written token 4 in B") {
		t.Errorf("pair sentence %q does not name the forced token", u.st.Kind)
	}
}
