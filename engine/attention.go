package engine

// Grouped-query self-attention over the KV cache (docs/spec/qwen2.md §3.5), shared by
// every architecture with softmax attention: the T new keys and values join
// the cache, every query attends to all cached positions up to its own,
// and the probes record or change what the panels show.
//
// Notation: H query heads, KV key/value heads, d head_dim, T queries in this
// call, C the KV cache capacity (ctxCap).

import (
	"math"

	"loupe/kernels"
)

// qBlock is the number of queries of one head that prefill attention
// handles together: each read of a key or value row then serves qBlock
// queries instead of one (a 3,139-token prompt's keys are 1.6 MiB per head
// and would otherwise stream from memory once per query). A multiple of
// kernels.MatMulNN's 12-token tile; 48 was no faster on the Gold-Bug
// passage (146 against 149 tok/s, 2 threads).
const qBlock = 24

// attention computes kqv_out [T, H·d] of layer l from the rotated Qcur,
// Kcur and Vcur in m.buf: store the keys and values, attend, then zero the
// heads the probes switch off (before o_proj).
func (m *Model) attention(l, T, pos0 int, pr *probes) {
	if m.batch != nil { // T sequences, one row each (batch.go)
		m.attendRows(l)
		return
	}
	m.storeKV(l, T, pos0)
	m.attend(l, T, pos0, pr)
	m.ablate(l, T, pr)
}

// storeKV copies the rotated keys and the values of T tokens into the cache,
// laid out [L][KV][C][d] so that one head's keys are contiguous in position.
func (m *Model) storeKV(l, T, pos0 int) {
	d, KV, b := m.cfg.HeadDim, m.cfg.NumKeyValueHeads, &m.buf
	for t := range T {
		for kvh := range KV {
			dst := m.kvOffset(l, kvh, pos0+t)
			src := (t*KV + kvh) * d
			copy(m.kCache[dst:dst+d], b.k[src:src+d])
			copy(m.vCache[dst:dst+d], b.v[src:src+d])
		}
	}
}

// kvOffset is the index of (layer, kv head, position) in kCache and vCache.
// A hybrid model caches only its attention layers (Model.kvSlot).
func (m *Model) kvOffset(l, kvh, pos int) int { return m.kvIndex(l, kvh, pos, m.ctxCap) }

// kvIndex is kvOffset in a cache of capacity positions (a batched
// sequence's own cache, batch.go).
func (m *Model) kvIndex(l, kvh, pos, capacity int) int {
	if m.kvSlot != nil {
		l = m.kvSlot[l]
	}
	return ((l*m.cfg.NumKeyValueHeads+kvh)*capacity + pos) * m.cfg.HeadDim
}

// attend computes kqv_out for all query heads and rows: grouped-query
// attention, query head qh reading kv head qh/(H/KV). Decode (T = 1) runs
// one work item per kv head, its H/KV queries together, so each cached key
// and value is read once per token, not once per query head. Prefill runs
// items of (head, block of qBlock queries), with the layer's keys
// transposed once for all heads. Each item is computed by one worker in a
// fixed order, so results do not depend on the thread count.
func (m *Model) attend(l, T, pos0 int, pr *probes) {
	if T == 1 {
		m.pool.For(m.cfg.NumKeyValueHeads, func(w, lo, hi int) {
			for kvh := lo; kvh < hi; kvh++ {
				m.attendGroup(l, kvh, pos0, w, pr)
			}
		})
		return
	}
	H := m.cfg.NumAttentionHeads
	m.transposeKeys(l, pos0+T)
	nBlocks := (T + qBlock - 1) / qBlock
	m.pool.For(H*nBlocks, func(w, lo, hi int) {
		for job := lo; job < hi; job++ {
			qh, blk := job/nBlocks, job%nBlocks
			m.attendBlock(l, qh, blk*qBlock, min(T, (blk+1)*qBlock), pos0, w, pr)
		}
	})
}

// transposeKeys fills kT[kvh] [d, nk] (row stride ctxCap) with Kᵀ of layer
// l's first nk cached keys, for every kv head, so that Q·Kᵀ reads the keys
// as the row-major right operand of kernels.MatMulNN. It moves d·nk floats
// per kv head, against 2·d·nk flops for each of the T·H/KV queries that
// read them. Blocks of 16 keys write whole cache lines of kT.
func (m *Model) transposeKeys(l, nk int) {
	d, KV := m.cfg.HeadDim, m.cfg.NumKeyValueHeads
	const blk = 16
	nb := (nk + blk - 1) / blk
	m.pool.For(KV*nb, func(_, lo, hi int) {
		for job := lo; job < hi; job++ {
			kvh, k0 := job/nb, job%nb*blk
			keys := m.kCache[m.kvOffset(l, kvh, 0):] // [nk, d]
			kT := m.buf.kT[kvh*d*m.ctxCap:]          // [d, ctxCap]
			for k := k0; k < min(nk, k0+blk); k++ {
				for c, v := range keys[k*d : (k+1)*d] {
					kT[c*m.ctxCap+k] = v
				}
			}
		}
	})
}

// attendGroup is attention for the one query (decode, position pos) of
// each of the g = H/KV heads that share kv head kvh, as two products:
//
//	kq [g, nk]          = (Q·scale) [g, d] · K[:nk]ᵀ   (nk = pos+1 keys)
//	kq_soft_max [g, nk] = softmax of each row          (fp32, max-subtracted)
//	kqv_out [g, d]      = kq_soft_max · V[:nk]
func (m *Model) attendGroup(l, kvh, pos, worker int, pr *probes) {
	base := m.kvOffset(l, kvh, 0)
	m.attendGroupOf(m.kCache[base:], m.vCache[base:], 0, l, kvh, pos, worker, pr)
}

// attendGroupOf is attendGroup for row t of Qcur and kqv_out [rows, H·d],
// over the keys and values [nk, d] of kv head kvh that start keys and
// vals: a batched decode's rows each read their own sequence's cache.
func (m *Model) attendGroupOf(keys, vals []float32, t, l, kvh, pos, worker int, pr *probes) {
	c, b := &m.cfg, &m.buf
	d, nk := c.HeadDim, pos+1
	g := c.NumAttentionHeads / c.NumKeyValueHeads
	row := t*c.NumAttentionHeads*d + kvh*g*d // the group's heads are adjacent
	keys, vals = keys[:nk*d], vals[:nk*d]    // [nk, d]
	qs, kq := b.qScratch[worker][:g*d], b.scores[worker][:g*nk]
	scale := float32(1 / math.Sqrt(float64(d)))
	for i, v := range b.q[row : row+g*d] {
		qs[i] = v * scale
	}
	kernels.MatMulF32(kq, nk, keys, qs, g, d) // kq [g, nk]
	for i := range g {
		row := kq[i*nk : (i+1)*nk]
		kernels.Softmax(row)
		pr.captureAttention(l, kvh*g+i, pos, row)
	}
	kernels.MatMulNN(b.kqv[row:], d, kq, nk, vals, d, g, nk, d) // kqv_out of the group's heads
}

// attendBlock is attention for query rows t0…t1-1 (n = t1-t0 of them) of
// head qh, over the nk = pos0+t1 keys the last row sees, as two products:
//
//	kq [n, nk]          = (Q·scale) [n, d] · Kᵀ[:, :nk]   (kT, from transposeKeys)
//	kq_soft_max [n, nk] = softmax of row t over keys ≤ pos0+t; later keys 0
//	kqv_out [n, d]      = kq_soft_max · V[:nk]            (V read in place)
//
// The few masked entries of each row are computed and then zeroed, so a
// row costs at most qBlock extra keys.
func (m *Model) attendBlock(l, qh, t0, t1, pos0, worker int, pr *probes) {
	c, b := &m.cfg, &m.buf
	d, qDim, n, nk := c.HeadDim, c.NumAttentionHeads*c.HeadDim, t1-t0, pos0+t1
	kvh := qh / (c.NumAttentionHeads / c.NumKeyValueHeads)
	kT := b.kT[kvh*d*m.ctxCap:][:d*m.ctxCap]        // [d, ctxCap]
	vals := m.vCache[m.kvOffset(l, kvh, 0):][:nk*d] // [nk, d]
	qs, kq := b.qScratch[worker][:n*d], b.scores[worker][:n*nk]
	scale := float32(1 / math.Sqrt(float64(d)))
	for t := range n {
		q := b.q[(t0+t)*qDim+qh*d:][:d]
		for i, v := range q {
			qs[t*d+i] = v * scale
		}
	}
	kernels.MatMulNN(kq, nk, qs, d, kT, m.ctxCap, n, d, nk) // kq [n, nk]
	for t := range n {
		pos := pos0 + t0 + t
		row := kq[t*nk : (t+1)*nk]
		kernels.Softmax(row[:pos+1])
		clear(row[pos+1:])
		pr.captureAttention(l, qh, pos, row[:pos+1])
	}
	kernels.MatMulNN(b.kqv[t0*qDim+qh*d:], qDim, kq, nk, vals, d, n, nk, d) // kqv_out rows of head qh
}

// ablate zeroes the output of the chosen heads of layer l before o_proj,
// removing their contribution to the residual stream.
func (m *Model) ablate(l, T int, pr *probes) {
	d, qDim := m.cfg.HeadDim, m.cfg.NumAttentionHeads*m.cfg.HeadDim
	for _, qh := range pr.ablated(l) {
		for t := range T {
			clear(m.buf.kqv[t*qDim+qh*d : t*qDim+(qh+1)*d])
		}
	}
}
