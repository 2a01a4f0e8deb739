package sample

import "slices"

// better orders the vocabulary best-first: higher logit, then lower id.
func better(z []float32, a, b int32) bool {
	return z[a] > z[b] || z[a] == z[b] && a < b
}

// topSorted returns the m best ids, best-first, in a scratch slice that the
// next call reuses. A size-m min-heap makes it O(V log m) instead of sorting
// all V = 151,936 logits; large m falls back to a full sort.
func (s *Sampler) topSorted(z []float32, m int) []int32 {
	m = min(m, len(z))
	if m > len(z)/8 {
		return s.sortAll(z)[:m]
	}
	h := s.heap[:0]
	for i := range min(m, len(z)) {
		h = append(h, int32(i))
		siftUp(z, h, len(h)-1)
	}
	if m == 0 {
		s.heap = h
		return h
	}
	// Once the heap is full almost every logit is below its worst one, so
	// the loop compares against that value held in a register and looks
	// at the heap only for a logit that beats or ties it.
	worst := z[h[0]]
	i := m
	for ; i+4 <= len(z); i += 4 {
		// Four at a time: a group all below the worst one kept changes
		// nothing (a NaN is not below it: looked at value by value).
		if z[i] < worst && z[i+1] < worst && z[i+2] < worst && z[i+3] < worst {
			continue
		}
		for k := i; k < i+4; k++ {
			worst = offer(z, h, k, worst)
		}
	}
	for ; i < len(z); i++ {
		worst = offer(z, h, i, worst)
	}
	slices.SortFunc(h, func(a, b int32) int { return compare(z, a, b) })
	s.heap = h
	return h
}

// offer puts id i into the min-heap h of the best ids if it beats the
// worst kept (its logit worst), and returns the worst kept after.
func offer(z []float32, h []int32, i int, worst float32) float32 {
	if v := z[i]; v > worst || v == worst && better(z, int32(i), h[0]) {
		h[0] = int32(i)
		siftDown(z, h, 0)
		return z[h[0]]
	}
	return worst
}

func (s *Sampler) sortAll(z []float32) []int32 {
	if cap(s.all) < len(z) {
		s.all = make([]int32, len(z))
	}
	all := s.all[:len(z)]
	for i := range all {
		all[i] = int32(i)
	}
	slices.SortFunc(all, func(a, b int32) int { return compare(z, a, b) })
	return all
}

func compare(z []float32, a, b int32) int {
	if better(z, a, b) {
		return -1
	}
	if better(z, b, a) {
		return 1
	}
	return 0
}

// The heap keeps the worst kept id at h[0]: a parent is never better than
// its children.
func siftUp(z []float32, h []int32, i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !better(z, h[p], h[i]) {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func siftDown(z []float32, h []int32, i int) {
	for {
		w := i
		for _, c := range [2]int{2*i + 1, 2*i + 2} {
			if c < len(h) && better(z, h[w], h[c]) {
				w = c
			}
		}
		if w == i {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}
