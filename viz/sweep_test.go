package viz

import (
	"os"
	"testing"

	"gonum.org/v1/plot/vg"
)

// contextSweep is the 1.5B context sweep as measured (tokens/s, bytes).
var contextSweep = []SweepPoint{
	{"256", 98, 14.2, 15.3, 3.1e9},
	{"1k", 95, 13.9, 14.9, 3.2e9},
	{"4k", 80, 12.1, 13.4, 3.6e9},
	{"16k", 41, 9.0, 9.6, 5.0e9},
	{"32k", 23, 6.4, 7.0, 6.8e9},
}

// LOUPE_SWEEP_PNG=file.png writes the figure to look at.
func TestSweepDraws(t *testing.T) {
	f := Sweep("decode against the context", contextSweep, []string{"reading", "note"}, Dark())
	b, err := PNG(f, 10*vg.Inch, 5*vg.Inch)
	if err != nil || len(b) == 0 {
		t.Fatalf("%d bytes, err %v", len(b), err)
	}
	if path := os.Getenv("LOUPE_SWEEP_PNG"); path != "" {
		os.WriteFile(path, b, 0o644)
	}
	if _, ok := IsNoData(Sweep("empty", nil, nil, Dark())); !ok {
		t.Fatal("no points: want a no-data figure")
	}
}
