package viz

import (
	"math"
	"testing"

	"loupe/trace"
)

func TestLensLeads(t *testing.T) {
	lens := purpleLens() // purple on top at 15, then from 17 on
	if first, stays := LensLeads(lens, -1); first != 15 || stays != 17 {
		t.Errorf("LensLeads = %d, %d; want 15, 17", first, stays)
	}
	if first, stays := LensLeads(lens, 12345); first != -1 || stays != -1 {
		t.Errorf("a token never on top: %d, %d", first, stays)
	}
	if first, _ := LensLeads(nil, -1); first != -1 {
		t.Errorf("no lens: %d", first)
	}
	one := []trace.LensLayer{{Top: []trace.Candidate{{ID: 3, P: 0.5}}}}
	if first, stays := LensLeads(one, -1); first != 0 || stays != 0 {
		t.Errorf("one layer: %d, %d", first, stays)
	}
}

func TestStatsOf(t *testing.T) {
	s := StatsOf([]float32{3, -4, float32(math.NaN())})
	if s.Norm != 5 || s.Min != -4 || s.Max != 3 || s.MeanAbs != 3.5 {
		t.Errorf("StatsOf = %+v", s)
	}
	if z := StatsOf(nil); z != (EmbeddingStats{}) {
		t.Errorf("empty: %+v", z)
	}
	if got := RowShape(24503, 151936, 1536); got != "row 24,503 of 151,936 × 1,536" {
		t.Errorf("RowShape = %q", got)
	}
}
