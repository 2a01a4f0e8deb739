package trace

import "testing"

func TestDecodePasses(t *testing.T) {
	for _, c := range []struct{ tokens, passes int }{{0, 0}, {1, 0}, {2, 1}, {101, 100}} {
		if got := DecodePasses(c.tokens); got != c.passes {
			t.Errorf("DecodePasses(%d) = %d, want %d", c.tokens, got, c.passes)
		}
	}
}
