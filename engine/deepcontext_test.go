package engine

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// With every position computed, TimeAtContext decodes what a greedy run
// of the same tokens writes: its timed passes are the model's own.
func TestTimeAtContextComputedIsGreedyRun(t *testing.T) {
	m, _, _ := genModel(t)
	ids := m.Encode("The cat sat on the mat and looked")
	const n, k = 40, 6
	prompt := cycled(ids, n)
	run, err := m.generate(context.Background(), "", prompt, greedy(k+1), nil)
	if err != nil {
		t.Fatal(err)
	}
	var want []int
	for _, s := range run.Steps[:k] {
		want = append(want, s.Chosen.ID)
	}
	got, err := m.TimeAtContext(context.Background(), DeepOptions{Context: n, Ids: ids, Decode: k, Compute: true})
	if err != nil {
		t.Fatal(err)
	}
	if got.Filled != 0 || got.PrefillTokens != n || got.DecodeTokens != k {
		t.Fatalf("filled %d, prefilled %d, decoded %d; want 0, %d, %d", got.Filled, got.PrefillTokens, got.DecodeTokens, n, k)
	}
	if !slices.Equal(got.Decoded, want) {
		t.Fatalf("decoded %v, the greedy run wrote %v", got.Decoded, want)
	}
}

// Filled, only the last Prefill positions are computed; the cache holds
// written stand-in values below them, and nothing a later prompt reuses.
func TestTimeAtContextFills(t *testing.T) {
	m, _, cfg := genModel(t)
	ids := m.Encode("The cat sat")
	got, err := m.TimeAtContext(context.Background(), DeepOptions{Context: 50, Ids: ids, Prefill: 8, Decode: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got.Filled != 42 || got.PrefillTokens != 8 || len(got.Decoded) != 3 {
		t.Fatalf("filled %d, prefilled %d, decoded %d; want 42, 8, 3", got.Filled, got.PrefillTokens, len(got.Decoded))
	}
	off := m.kvOffset(cfg.NumHiddenLayers-1, cfg.NumKeyValueHeads-1, 41)
	if slices.Equal(m.kCache[off:off+cfg.HeadDim], make([]float32, cfg.HeadDim)) {
		t.Fatal("position 41 of the last layer holds zeros: the fill did not write it")
	}
	if len(m.kv.ids) != 0 {
		t.Fatalf("the cache claims to hold %d prompt tokens", len(m.kv.ids))
	}
	if _, err := m.TimeAtContext(context.Background(), DeepOptions{Context: 60, Ids: ids, Decode: 5}); !errors.Is(err, ErrContext) {
		t.Fatalf("60 + 5 positions in a context of 64: err %v, want ErrContext", err)
	}
}

// After ReleaseContext the next generation allocates its cache again and
// writes what a fresh model writes.
func TestReleaseContext(t *testing.T) {
	m, _, _ := genModel(t)
	want, err := m.Generate(context.Background(), "The cat sat", greedy(5), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.TimeAtContext(context.Background(), DeepOptions{Context: 50, Ids: m.Encode("x"), Prefill: 4, Decode: 2}); err != nil {
		t.Fatal(err)
	}
	m.ReleaseContext()
	if m.kCache != nil || m.ctxCap != 0 {
		t.Fatalf("cache of %d positions kept", m.ctxCap)
	}
	got, err := m.Generate(context.Background(), "The cat sat", greedy(5), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want.Steps {
		if got.Steps[i].Chosen != want.Steps[i].Chosen {
			t.Fatalf("step %d: %+v after release, %+v before", i, got.Steps[i].Chosen, want.Steps[i].Chosen)
		}
	}
}
