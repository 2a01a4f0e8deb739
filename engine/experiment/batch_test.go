package experiment

import (
	"strings"
	"testing"
)

// batchPoints are a batch sweep as measured on a loaded 2-vCPU Xeon (the
// Qwen2.5-1.5B shape, one thread): 1 and 16 conversations.
var batchPoints = []Point{
	{Value: 1, Label: "1", DecodeTokS: 0.97, PerSequenceTokS: 0.97, BytesPerToken: 3.09e9, MemoryCeilingTokS: 1.5,
		ComputeCeilingTokS: 20.8, PredictedTokS: 1.5, PredictedDecodeTokS: 1.5, ShareOfBandwidth: 0.645, ShareOfPeak: 0.046},
	{Value: 16, Label: "16", DecodeTokS: 7.29, PerSequenceTokS: 0.456, BytesPerToken: 1.95e8, MemoryCeilingTokS: 23.7,
		ComputeCeilingTokS: 20.8, PredictedTokS: 20.8, PredictedDecodeTokS: 20.8, ShareOfBandwidth: 0.307, ShareOfPeak: 0.35},
}

// The sentence claims what the numbers show: the total's gain, each
// conversation's wait, and which ceiling is the lower one.
func TestBatchReading(t *testing.T) {
	got := Reading(Result{What: Batch, Points: batchPoints})
	for _, want := range []string{"At 16 conversations each weight read serves 16 tokens", "writes 7.5 × more than with 1 conversation",
		"waits 2.1 × longer per token", "computation now allows less than memory (21 against 24 tokens/s): writing is computation again, at 35.0 % of the compute peak"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q not in %q", want, got)
		}
	}
	few := []Point{batchPoints[0], batchPoints[1]}
	few[1].MemoryCeilingTokS = 12 // memory still the lower ceiling
	if got := Reading(Result{What: Batch, Points: few}); !strings.Contains(got, "writing still waits for memory, at 30.7 % of its bandwidth") {
		t.Errorf("memory-bound: %q", got)
	}
}

// A saved batch sweep opens with its figures.
func TestBatchRecordKeepsFigures(t *testing.T) {
	r := Result{What: Batch, Points: batchPoints}
	back := NewRecord(r, Options{What: Batch}, "m", "f", "avx512", 1).Result()
	for i, p := range back.Points {
		w := batchPoints[i]
		if p.Value != w.Value || p.PerSequenceTokS != w.PerSequenceTokS || p.MemoryCeilingTokS != w.MemoryCeilingTokS ||
			p.ComputeCeilingTokS != w.ComputeCeilingTokS || p.PredictedTokS != w.PredictedTokS || p.ShareOfPeak != w.ShareOfPeak {
			t.Errorf("point %d: %+v, want %+v", i, p, w)
		}
	}
}
