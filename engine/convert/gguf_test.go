package convert

import (
	"fmt"
	"slices"
	"testing"

	"loupe/engine/gguf"
)

// convert_hf_to_gguf.py's permute, worked by hand for 2 heads of 4 rows:
// reshape [2, 2, 2], swap the last two axes.
func TestMetaPermutation(t *testing.T) {
	if got, want := metaPermutation(8, 2), []int{0, 2, 1, 3, 4, 6, 5, 7}; !slices.Equal(got, want) {
		t.Errorf("metaPermutation(8, 2) = %v, want %v", got, want)
	}
}

// llama-quantize's Q4_K_M gives attn_v and ffn_down Q6_K in the layers of
// use_more_bits; for 28 layers (Qwen2.5-1.5B) those are, listed by hand,
// 0–2 (the first eighth), 24–27 (the last) and every third between from 5.
func TestMixTypeMoreBitsLayers(t *testing.T) {
	c := hfConfig{NumHiddenLayers: 28}
	more := []int{0, 1, 2, 5, 8, 11, 14, 17, 20, 23, 24, 25, 26, 27}
	for l := range 28 {
		want := gguf.Q4_K
		if slices.Contains(more, l) {
			want = gguf.Q6_K
		}
		if got := mixType(fmt.Sprintf("blk.%d.ffn_down.weight", l), c, "q4_k_m"); got != want {
			t.Errorf("layer %d ffn_down: %s, want %s", l, got, want)
		}
		if got := mixType(fmt.Sprintf("blk.%d.attn_q.weight", l), c, "q5_k_m"); got != gguf.Q5_K {
			t.Errorf("layer %d attn_q in q5_k_m: %s, want Q5_K", l, got)
		}
	}
	if got := mixType("output.weight", c, "q4_k_m"); got != gguf.Q6_K {
		t.Errorf("output head: %s, want Q6_K", got)
	}
}
