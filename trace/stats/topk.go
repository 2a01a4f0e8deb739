package stats

import (
	"cmp"
	"math/rand/v2"
	"slices"

	"loupe/trace"
)

// Share is one key position and the share of attention it receives.
type Share struct {
	Pos int
	P   float64
}

// TopK returns the k largest values of w (one head's attention over its
// keys), largest first, ties to the earlier position, and the sum of all
// the others, so a long prompt stays readable. NaN and ±Inf count as 0.
func TopK(w []float32, k int) (top []Share, rest float64) {
	all := make([]Share, len(w))
	for i, v := range w {
		all[i] = Share{i, float64(v)}
		if !finite(all[i].P) {
			all[i].P = 0
		}
	}
	slices.SortStableFunc(all, func(a, b Share) int { return cmp.Compare(b.P, a.P) })
	k = max(0, min(k, len(all)))
	for _, s := range all[k:] {
		rest += s.P
	}
	return all[:k], rest
}

// TopHeads are the n cells of a layers × heads grid with the largest
// values (the heads that look most at the source), largest first; ties
// go to the lower layer, then the lower head. NaN cells come last.
func TopHeads(g [][]float64, n int) []trace.Head {
	var all []trace.Head
	for l, row := range g {
		for h := range row {
			all = append(all, trace.Head{Layer: l, Head: h})
		}
	}
	val := func(x trace.Head) float64 {
		if v := g[x.Layer][x.Head]; finite(v) {
			return v
		}
		return -1
	}
	slices.SortStableFunc(all, func(a, b trace.Head) int { return cmp.Compare(val(b), val(a)) })
	return all[:min(max(n, 0), len(all))]
}

// RandomHeads draws n distinct heads of a layers × heads model, the same
// ones for the same seed (PCG seeded with seed, a partial Fisher–Yates
// shuffle of every head), in the order drawn.
func RandomHeads(layers, heads, n int, seed uint64) []trace.Head {
	total := layers * heads
	n = min(max(n, 0), total)
	idx := make([]int, total)
	for i := range idx {
		idx[i] = i
	}
	r := rand.New(rand.NewPCG(seed, 0x6c6f757065)) // "loupe"
	out := make([]trace.Head, n)
	for i := range n {
		j := i + r.IntN(total-i)
		idx[i], idx[j] = idx[j], idx[i]
		out[i] = trace.Head{Layer: idx[i] / heads, Head: idx[i] % heads}
	}
	return out
}
