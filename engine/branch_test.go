package engine

import (
	"context"
	"errors"
	"math"
	"testing"

	"loupe/trace"
)

// A branch at step N with token X writes what a greedy run of the prompt
// followed by the first N written tokens and X writes: the same tokens,
// the same top-10 (within float rounding: one reads them as a prefill,
// the other decoded them one by one).
func TestBranchIsRunOfPrefixWithTokenForced(t *testing.T) {
	m, _, _ := genModel(t)
	ctx := context.Background()
	prompt := m.Encode("Once upon a time")
	const n, at = 10, 3
	orig, err := m.generate(ctx, "", prompt, greedy(n), nil)
	if err != nil {
		t.Fatal(err)
	}
	forced := orig.Steps[at].Top[4].ID // the fifth most likely: not the greedy choice
	opt := greedy(n)
	opt.Branch = &trace.Branch{At: at, Token: forced}
	br, err := m.generate(ctx, "", prompt, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(br.Steps) != n || br.Settings.Branch == nil || *br.Settings.Branch != *opt.Branch {
		t.Fatalf("%d steps, settings branch %v", len(br.Steps), br.Settings.Branch)
	}
	for i := range at {
		if br.Steps[i].Chosen.ID != orig.Steps[i].Chosen.ID {
			t.Fatalf("step %d before the branch: %d, the original wrote %d", i, br.Steps[i].Chosen.ID, orig.Steps[i].Chosen.ID)
		}
	}
	if c := br.Steps[at].Chosen; c.ID != forced || math.Abs(c.P-orig.Steps[at].Top[4].P) > 1e-6 {
		t.Fatalf("branch step chose %d p %v, want %d p %v", c.ID, c.P, forced, orig.Steps[at].Top[4].P)
	}
	ids := append([]int(nil), prompt...)
	for _, s := range orig.Steps[:at] {
		ids = append(ids, s.Chosen.ID)
	}
	ids = append(ids, forced)
	ref, err := m.generate(ctx, "", ids, greedy(n-at-1), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range ref.Steps {
		b := br.Steps[at+1+i]
		if b.Chosen.ID != s.Chosen.ID {
			t.Fatalf("written token %d: branch %d, run of the prefix %d", at+1+i, b.Chosen.ID, s.Chosen.ID)
		}
		for j := range s.Top {
			if b.Top[j].ID != s.Top[j].ID || math.Abs(b.Top[j].P-s.Top[j].P) > 1e-4 {
				t.Fatalf("written token %d, candidate %d: branch %+v, run of the prefix %+v", at+1+i, j, b.Top[j], s.Top[j])
			}
		}
	}
	opt.Branch = &trace.Branch{At: n, Token: forced}
	if _, err := m.generate(ctx, "", prompt, opt, nil); !errors.Is(err, ErrSettings) {
		t.Fatalf("branch past max tokens: err %v, want ErrSettings", err)
	}
}
