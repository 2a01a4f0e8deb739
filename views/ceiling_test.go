package views

import (
	"strings"
	"testing"
	"time"

	"loupe/engine/perf"
)

// One probe is "its only probe", not "the best of 1 probes".
func TestCeilingTextCountsItsProbes(t *testing.T) {
	now := time.Now()
	b := perf.Bandwidth{BestGBs: 45, Threads: 2, When: now}
	one := CeilingText(perf.Ceiling{Best: b, Probes: []perf.Bandwidth{b}}, true, false, now)
	if strings.Contains(one, "1 probes") || !strings.Contains(one, "from its only probe") {
		t.Errorf("one probe: %q", one)
	}
	three := CeilingText(perf.Ceiling{Best: b, Probes: []perf.Bandwidth{b, b, b}}, true, false, now)
	if !strings.Contains(three, "the best of 3 probes") {
		t.Errorf("three probes: %q", three)
	}
}
