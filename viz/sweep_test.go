package viz

import (
	"os"
	"strings"
	"testing"

	"gonum.org/v1/plot"
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

// The sweep's speed axes are labelled at round steps, as counts: a
// threads sweep whose reading reached 28,000 tokens/s read "0.00
// 25000.00" with gonum's default ticks.
func TestSweepAxesHaveRoundTicks(t *testing.T) {
	pts := []SweepPoint{{"1", 2500, 150, 1081, 33e6}, {"2", 28000, 171, 1081, 33e6}}
	th := Dark().complete()
	for _, p := range []*plot.Plot{sweepReading(pts, th), sweepWriting(pts, th)} {
		for _, hi := range []float64{28000, 14600, 1081, 171, 2.7, 1} {
			var labels []string
			for _, tk := range p.X.Tick.Marker.Ticks(0, hi) {
				if tk.Label != "" {
					labels = append(labels, tk.Label)
				}
			}
			joined := strings.Join(labels, " ")
			if len(labels) < 3 || len(labels) > 6 || strings.Contains(joined, ".00") || strings.Contains(joined, "25000") {
				t.Errorf("%s: 0 to %v labelled %q", p.X.Label.Text, hi, joined)
			}
		}
	}
	if got := (speedTicks{}).Ticks(0, 28000); len(got) != 3 || got[2].Label != "20,000" {
		t.Errorf("0 to 28,000: %v", got)
	}
}
