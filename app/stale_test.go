package app

import (
	"strings"
	"testing"

	"loupe/trace"
	"loupe/viz"
)

// After View › Count from 0, Compare's sentence about the heads switched
// off counts from 0 too: it kept saying "counted from 1" and 2:3.
func TestCompareKindFollowsTheNumbering(t *testing.T) {
	h := newHarness(t, Options{})
	h.generate("My cat is purple . But my", 3)
	h.u.st.Heads = []trace.Head{hd(1, 2)}
	onUI(h.u.switchOff)
	h.wait()
	u := h.u
	if !strings.Contains(u.st.Kind, "2:3 (layer:head, counted from 1)") {
		t.Fatalf("kind %q", u.st.Kind)
	}
	onUI(func() {
		u.setNumbering(viz.FromZero)
		for _, it := range u.tabs.Items {
			if it.Content == u.compare.Object() {
				u.tabs.Select(it)
			}
		}
		u.refreshCompare()
	})
	if !strings.Contains(u.st.Kind, "1:2 (layer:head, counted from 0)") || u.compare.Kind.Text != u.st.Kind {
		t.Errorf("counted from 0: kind %q, Compare shows %q", u.st.Kind, u.compare.Kind.Text)
	}
	onUI(func() { u.setNumbering(viz.FromOne) })
	if !strings.Contains(u.st.Kind, "2:3 (layer:head, counted from 1)") {
		t.Errorf("back to counting from 1: %q", u.st.Kind)
	}
}
