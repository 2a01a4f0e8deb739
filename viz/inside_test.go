package viz

import "testing"

func TestRowShape(t *testing.T) {
	if got := RowShape(24503, 151936, 1536); got != "row 24,503 of 151,936 × 1,536" {
		t.Errorf("RowShape = %q", got)
	}
}
