package perf

import (
	"math"
	"testing"

	"loupe/trace"
)

// The 2B's prefill work, counted by hand from docs/spec/qwen35.md §4–§6: per token
// 2 × (6 × 14,680,576 attention + 18 × 21,061,792 DeltaNet + 24 × 37,748,736
// MLP) for the layer matrices, causal attention over 6 layers of 8 × 256,
// 18 × 16 heads of chunked delta rule, and one output head.
func TestHybridPrefillFLOPs(t *testing.T) {
	types := make([]string, 24)
	for i := range types {
		types[i] = "linear_attention"
		if (i+1)%4 == 0 {
			types[i] = "full_attention"
		}
	}
	m := trace.ModelInfo{Hidden: 2048, Intermediate: 6144, Heads: 8, KVHeads: 2, HeadDim: 256, Vocab: 248320,
		Layers: 24, LayerTypes: types, ParamsAttention: 6 * 14_680_576, ParamsDeltaNet: 18 * 21_061_792,
		ParamsMLP: 24 * 37_748_736, DeltaNetHeads: 16, DeltaNetKeyDim: 128, DeltaNetValDim: 128}
	T := 3139.0
	perHead := 2*(64*(256+256)+3*128*128) + 64*64/3.0
	want := 2*(6*14_680_576+18*21_061_792+24*37_748_736)*T + 2*248320*2048 +
		6*4*2048*T*(T+1)/2 + 18*16*perHead*T
	if got := PrefillFLOPs(m, 3139); math.Abs(got-want) > 1e-9*want {
		t.Fatalf("PrefillFLOPs = %.6g, want %.6g", got, want)
	}
	t.Logf("2B prefill of 3,139 tokens: %.3g TFLOP", want/1e12)
}
