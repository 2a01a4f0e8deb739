package app

import (
	"testing"

	"loupe/trace"
)

// The history keeps the newest maxHistory runs; a rerun becomes run B of
// its run A, and a pair that falls out of the history is forgotten.
func TestCompareStateHistory(t *testing.T) {
	c := compareState{a: -1, b: -1}
	if _, _, ok := c.pair(); ok {
		t.Fatal("a pair before any run")
	}
	runs := make([]*trace.Run, maxHistory+2)
	for i := range runs {
		runs[i] = &trace.Run{Prompt: string(rune('a' + i))}
	}
	c.add(runs[0])
	c.role = &runRole{base: runs[0], kind: "rerun", sourceA: 3}
	c.add(runs[1])
	a, b, ok := c.pair()
	if !ok || a != runs[0] || b != runs[1] || c.kind != "rerun" || c.sourceA != 3 || c.role != nil || !c.isB(runs[1]) || c.isB(runs[0]) {
		t.Fatalf("after a rerun: %v %v %v, kind %q, sourceA %d", a, b, ok, c.kind, c.sourceA)
	}
	for _, r := range runs[2:] {
		c.add(r)
	}
	if len(c.runs) != maxHistory || c.runs[0] != runs[2] || c.runs[maxHistory-1] != runs[len(runs)-1] {
		t.Fatalf("history of %d runs from %q", len(c.runs), c.runs[0].Prompt)
	}
	if _, _, ok := c.pair(); ok || c.a != -1 || c.b != -1 {
		t.Errorf("the pair (runs 0 and 1) fell out of the history but is still compared: a=%d b=%d", c.a, c.b)
	}
	// A pair inside the history follows its runs as older ones drop out.
	c.a, c.b = 5, 3
	want := [2]*trace.Run{c.runs[5], c.runs[3]}
	c.add(&trace.Run{})
	if a, b, ok := c.pair(); !ok || a != want[0] || b != want[1] {
		t.Errorf("the pair moved to other runs: a=%d b=%d", c.a, c.b)
	}
}
