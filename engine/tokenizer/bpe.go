package tokenizer

import (
	"container/heap"
	"sync"
)

// merge is the outcome of merging one adjacent pair of tokens.
type merge struct {
	rank int32 // index in model.merges: lower merges first
	id   int32 // vocab id of the concatenation
}

// pairKey packs the ids of an adjacent pair (left, right) into a map key.
func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// bpe encodes one pre-token (raw bytes) to ids, appending to dst
// (docs/spec/tokenizer.md §5): start from one token per byte, then repeatedly merge
// the adjacent pair of lowest rank, the leftmost one on ties, until no
// adjacent pair has a rank. The min-heap keyed by (rank, position) keeps
// long pieces O(n log n); stale heap entries are skipped, as in HF's
// word.rs.
func (t *Tokenizer) bpe(dst []int, raw string) []int {
	if len(raw) <= smallPiece {
		return t.bpeSmall(dst, raw)
	}
	n := len(raw)
	syms := make([]symbol, n)
	for i := 0; i < n; i++ {
		syms[i] = symbol{id: t.byteID[raw[i]], prev: i - 1, next: i + 1}
	}
	syms[n-1].next = -1
	h := make(mergeHeap, 0, n)
	for i := 0; i+1 < n; i++ {
		if m, ok := t.merges[pairKey(syms[i].id, syms[i+1].id)]; ok {
			h = append(h, candidate{rank: m.rank, pos: i, id: m.id})
		}
	}
	heap.Init(&h)
	for h.Len() > 0 {
		c := heap.Pop(&h).(candidate)
		t.applyMerge(syms, &h, c)
	}
	for i := 0; i >= 0; i = syms[i].next {
		dst = append(dst, int(syms[i].id))
	}
	return dst
}

// smallPiece is the longest piece bpeSmall takes. Almost every word is
// shorter; for those a linear scan over a stack array beats the heap, which
// allocates (measured: cold encoding of gold-bug.txt ~2× faster).
const smallPiece = 32

// noMerge marks an adjacent pair without a rank.
const noMerge = int32(1<<31 - 1)

// bpeSmall is bpe for pieces of at most smallPiece bytes: ids[i] are the
// current tokens and ranks[i] the merge of ids[i] with ids[i+1]; each step
// merges the lowest rank, the leftmost on ties, and refreshes its two
// neighbouring pairs.
func (t *Tokenizer) bpeSmall(dst []int, raw string) []int {
	var idBuf [smallPiece]int32
	var mBuf [smallPiece]merge
	n := len(raw)
	ids, ms := idBuf[:n], mBuf[:n]
	for i := 0; i < n; i++ {
		ids[i] = t.byteID[raw[i]]
	}
	for i := 0; i+1 < n; i++ {
		ms[i] = t.pairMerge(ids[i], ids[i+1])
	}
	for n > 1 {
		best := 0
		for i := 1; i+1 < n; i++ {
			if ms[i].rank < ms[best].rank {
				best = i
			}
		}
		if ms[best].rank == noMerge {
			break
		}
		ids[best] = ms[best].id
		copy(ids[best+1:n], ids[best+2:n])
		copy(ms[best+1:n-1], ms[best+2:n])
		n--
		if best > 0 {
			ms[best-1] = t.pairMerge(ids[best-1], ids[best])
		}
		if best+1 < n {
			ms[best] = t.pairMerge(ids[best], ids[best+1])
		}
	}
	for _, id := range ids[:n] {
		dst = append(dst, int(id))
	}
	return dst
}

// pairMerge looks up the merge of an adjacent pair; rank noMerge if none.
func (t *Tokenizer) pairMerge(a, b int32) merge {
	if m, ok := t.merges[pairKey(a, b)]; ok {
		return m
	}
	return merge{rank: noMerge}
}

// symbol is one token of a piece during BPE, in a doubly linked list;
// a merged-away symbol has id -1.
type symbol struct {
	id         int32
	prev, next int
}

// applyMerge merges syms[c.pos] with its right neighbour if the candidate
// is still current, then queues the pairs the new token forms.
func (t *Tokenizer) applyMerge(syms []symbol, h *mergeHeap, c candidate) {
	left := &syms[c.pos]
	if left.id < 0 || left.next < 0 {
		return
	}
	right := &syms[left.next]
	if m, ok := t.merges[pairKey(left.id, right.id)]; !ok || m.id != c.id || m.rank != c.rank {
		return // one side changed since this candidate was queued
	}
	left.id = c.id
	right.id = -1
	left.next = right.next
	if left.next >= 0 {
		syms[left.next].prev = c.pos
	}
	if p := left.prev; p >= 0 {
		if m, ok := t.merges[pairKey(syms[p].id, left.id)]; ok {
			heap.Push(h, candidate{rank: m.rank, pos: p, id: m.id})
		}
	}
	if nx := left.next; nx >= 0 {
		if m, ok := t.merges[pairKey(left.id, syms[nx].id)]; ok {
			heap.Push(h, candidate{rank: m.rank, pos: c.pos, id: m.id})
		}
	}
}

// candidate is a pair waiting to merge: the left symbol's position.
type candidate struct {
	rank int32
	pos  int
	id   int32
}

// mergeHeap orders candidates by rank, then by position (leftmost first).
type mergeHeap []candidate

func (h mergeHeap) Len() int { return len(h) }
func (h mergeHeap) Less(i, j int) bool {
	if h[i].rank != h[j].rank {
		return h[i].rank < h[j].rank
	}
	return h[i].pos < h[j].pos
}
func (h mergeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)   { *h = append(*h, x.(candidate)) }
func (h *mergeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// wordCache remembers the ids of pieces already encoded: BPE depends only
// on the piece, and running text repeats its words. It is bounded: when
// full it starts over, so a long or adversarial input cannot grow it
// without limit.
type wordCache struct {
	mu sync.RWMutex
	m  map[string][]int
}

const wordCacheMax = 1 << 16

func (c *wordCache) get(piece string) ([]int, bool) {
	c.mu.RLock()
	ids, ok := c.m[piece]
	c.mu.RUnlock()
	return ids, ok
}

func (c *wordCache) put(piece string, ids []int) {
	c.mu.Lock()
	if c.m == nil || len(c.m) >= wordCacheMax {
		c.m = make(map[string][]int, 1024)
	}
	c.m[piece] = ids
	c.mu.Unlock()
}
