package engine

import (
	"context"
	"fmt"
	"time"

	"loupe/kernels"
)

// DeepOptions set one measurement of TimeAtContext.
type DeepOptions struct {
	Context int   // positions the KV cache holds when decode starts (n)
	Ids     []int // text to read: the last Prefill of its tokens (cycled) are computed
	Prefill int   // positions computed just below n (1 … n); the rest is filled
	Decode  int   // decode passes timed at positions n, n+1, …
	// Compute computes every position below n (a prefill of n tokens)
	// instead of filling the cache with stand-in keys and values.
	Compute bool
	Kernels kernels.Choice // as GenerateOptions.Kernels
}

// DeepTiming is what TimeAtContext measured.
type DeepTiming struct {
	Context        int       `json:"context"`
	Filled         int       `json:"filled"` // positions holding stand-in keys and values, not computed
	PrefillTokens  int       `json:"prefill_tokens"`
	PrefillSeconds float64   `json:"prefill_seconds"`
	DecodeTokens   int       `json:"decode_tokens"`
	DecodeSeconds  float64   `json:"decode_seconds"`
	Decoded        []int     `json:"decoded"`      // the greedy tokens of the passes
	StepSeconds    []float64 `json:"step_seconds"` // each pass
}

// TimeAtContext measures reading and writing at a deep context: the KV
// cache holds opt.Context positions when decode starts. A decode pass
// reads every cached key and value whatever they hold, so its time does
// not depend on their values: unless opt.Compute, the cache below the
// last opt.Prefill positions is filled with stand-in values (written, so
// that every page is really in memory and really read), which takes
// seconds where computing 32,000 positions takes many minutes. The last
// opt.Prefill positions are computed as one timed prefill at that depth;
// then opt.Decode greedy passes are timed. The cache holds no prompt a
// later run could reuse afterwards.
func (m *Model) TimeAtContext(ctx context.Context, opt DeepOptions) (_ DeepTiming, err error) {
	defer recoverError(&err)
	n := opt.Context
	switch {
	case n < 1 || opt.Decode < 1 || len(opt.Ids) == 0:
		return DeepTiming{}, fmt.Errorf("%w: context %d, decode %d, %d ids (want ≥ 1 each)", ErrSettings, n, opt.Decode, len(opt.Ids))
	case n+opt.Decode > m.cfg.MaxPositionEmbeddings:
		return DeepTiming{}, fmt.Errorf("%w: %d positions + %d decoded = %d, the model's context is %d",
			ErrContext, n, opt.Decode, n+opt.Decode, m.cfg.MaxPositionEmbeddings)
	}
	if err := m.checkRunMemory(n+opt.Decode, 0); err != nil {
		return DeepTiming{}, err
	}
	restore, err := useKernels(opt.Kernels)
	if err != nil {
		return DeepTiming{}, err
	}
	defer restore()
	m.reserveContext(n + opt.Decode)
	defer m.kv.failed() // stand-in values: nothing to reuse
	computed := min(max(opt.Prefill, 1), n)
	if opt.Compute {
		computed = n
	}
	t := DeepTiming{Context: n, Filled: n - computed, PrefillTokens: computed}
	m.fillKV(t.Filled)
	pr := m.newProbes(GenerateOptions{})
	ids := cycled(opt.Ids, computed)
	start := time.Now()
	var logits []float32
	for lo := 0; lo < computed; lo += prefillChunk {
		hi := min(computed, lo+prefillChunk)
		if logits, err = m.forward(ctx, ids[lo:hi], t.Filled+lo, pr); err != nil {
			return t, err
		}
	}
	t.PrefillSeconds = time.Since(start).Seconds()
	start = time.Now()
	prev := start
	for i := range opt.Decode {
		id := greedyID(logits)
		t.Decoded = append(t.Decoded, id)
		if logits, err = m.forward(ctx, []int{id}, n+i, pr); err != nil {
			return t, err
		}
		t.DecodeTokens++
		now := time.Now()
		t.StepSeconds, prev = append(t.StepSeconds, now.Sub(prev).Seconds()), now
	}
	t.DecodeSeconds = time.Since(start).Seconds()
	return t, nil
}

// fillKV writes stand-in keys and values at positions 0…n-1 of every
// layer and kv head: small values that vary along the head dimension and
// position, so that attention over them is an ordinary softmax.
func (m *Model) fillKV(n int) {
	d := m.cfg.HeadDim
	row := make([]float32, d)
	for lh := range m.kvLayers() * m.cfg.NumKeyValueHeads { // [L][KV][ctxCap][d]
		for pos := range n {
			for i := range row {
				row[i] = float32((pos*31+i*17+lh*7)%61-30) / 300
			}
			off := (lh*m.ctxCap + pos) * d
			copy(m.kCache[off:off+d], row)
			copy(m.vCache[off:off+d], row)
		}
	}
}

// cycled returns the first n ids of ids repeated.
func cycled(ids []int, n int) []int {
	out := make([]int, 0, n)
	for len(out) < n {
		out = append(out, ids[:min(len(ids), n-len(out))]...)
	}
	return out
}

// greedyID is the index of the largest value (the first of equals).
func greedyID(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// ReleaseContext frees the KV cache and the attention scratch sized to
// it: after TimeAtContext at 32k positions they hold gigabytes (1.5B:
// 3.7 GB) that a chat of a few hundred tokens never needs. The next
// generation allocates what it needs.
func (m *Model) ReleaseContext() {
	m.kCache, m.vCache, m.ctxCap = nil, nil, 0
	m.ropeCos, m.ropeSin = nil, nil
	m.buf.scores, m.buf.qScratch, m.buf.kT = nil, nil, nil
	m.kv.failed()
}
