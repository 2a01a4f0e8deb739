package viz

import (
	"os"
	"testing"

	"gonum.org/v1/plot/vg"
)

// LOUPE_BATCH_PNG=file.png writes the figure to look at.
func TestBatchSweepDraws(t *testing.T) {
	pts := []BatchPoint{{"1", 4.5, 4.5, 4.7, 83}, {"2", 8.1, 4.0, 9.3, 83}, {"8", 16, 2.0, 37, 83}, {"16", 21, 1.3, 70, 83}}
	f := BatchSweep("several conversations at once", pts, []string{"reading"}, Dark())
	b, err := PNG(f, 10*vg.Inch, 5*vg.Inch)
	if err != nil || len(b) == 0 {
		t.Fatalf("%d bytes, err %v", len(b), err)
	}
	if path := os.Getenv("LOUPE_BATCH_PNG"); path != "" {
		os.WriteFile(path, b, 0o644)
	}
	if _, ok := IsNoData(BatchSweep("empty", nil, nil, Dark())); !ok {
		t.Fatal("no points: want a no-data figure")
	}
}
