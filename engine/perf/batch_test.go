package perf

import (
	"math"
	"testing"

	"loupe/engine"
)

// TestDecodeFLOPsQwen15 checks the count against figures worked out by
// hand: 2 per layer-matrix weight (1,310,195,712 on Qwen2.5-1.5B), the
// output head, and attention over pos+1 keys (4·H·d a key and layer).
func TestDecodeFLOPsQwen15(t *testing.T) {
	const layerWeights = 1_310_195_712
	const head = 2 * 151936 * 1536
	for _, pos := range []int{0, 16, 1000} {
		want := 2*float64(layerWeights) + head + 28*4*1536*float64(pos+1)
		if got := DecodeFLOPs(qwen15, pos); math.Abs(got-want) > 1e-6*want {
			t.Errorf("pos %d: %.6g FLOPs, want %.6g", pos, got, want)
		}
	}
}

// TestBatchFigures: 8 rows a pass sharing 3 GB of weights, worked by hand.
func TestBatchFigures(t *testing.T) {
	kv := float64(qwen15.KVBytesPerToken)
	// Two passes of 8 rows, every row at position 99 (100 keys read).
	tm := engine.BatchTiming{PassRows: []int{8, 8}, PassSeconds: []float64{1, 1}, WeightBytes: 3e9, KVBytes: 16 * 100 * kv}
	f := Batch(qwen15, tm, 20, 50, 400)
	bytes := 3e9/8 + 100*kv
	flops := DecodeFLOPs(qwen15, 99)
	want := BatchFigures{Rows: 8, DecodeTokS: 20, PerSequenceTokS: 2.5, BytesPerToken: bytes, FLOPsPerToken: flops,
		GBs: 20 * bytes / 1e9, GFLOPs: 20 * flops / 1e9, ShareOfBandwidth: 20 * bytes / 1e9 / 50, ShareOfPeak: 20 * flops / 1e9 / 400,
		MemoryCeiling: 50e9 / bytes, ComputeCeiling: 400e9 / flops}
	want.Predicted = min(want.MemoryCeiling, want.ComputeCeiling)
	if !sameFigures(f, want) {
		t.Errorf("got  %+v\nwant %+v", f, want)
	}
	if b := Crossover(50, 3e9, 100*kv, want.ComputeCeiling); math.Abs(50e9/(3e9/b+100*kv)-want.ComputeCeiling) > 1e-6*want.ComputeCeiling {
		t.Errorf("crossover %.3g: memory there allows %.4g, computation %.4g", b, 50e9/(3e9/b+100*kv), want.ComputeCeiling)
	}
	if Crossover(50, 3e9, 1e12, want.ComputeCeiling) != 0 || Crossover(0, 3e9, 0, 10) != 0 {
		t.Error("a crossover where memory bounds every batch, or the bandwidth is unknown")
	}
}

func sameFigures(a, b BatchFigures) bool {
	x := []float64{a.Rows, a.DecodeTokS, a.PerSequenceTokS, a.BytesPerToken, a.FLOPsPerToken, a.GBs, a.GFLOPs, a.ShareOfBandwidth, a.ShareOfPeak, a.MemoryCeiling, a.ComputeCeiling, a.Predicted}
	y := []float64{b.Rows, b.DecodeTokS, b.PerSequenceTokS, b.BytesPerToken, b.FLOPsPerToken, b.GBs, b.GFLOPs, b.ShareOfBandwidth, b.ShareOfPeak, b.MemoryCeiling, b.ComputeCeiling, b.Predicted}
	for i := range x {
		if math.Abs(x[i]-y[i]) > 1e-9*math.Abs(y[i]) {
			return false
		}
	}
	return true
}
