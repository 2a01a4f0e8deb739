package engine

// The Qwen2 forward pass (qwen2.md §3), top to bottom. One call runs T
// tokens at positions pos0…pos0+T-1: a prefill chunk (T > 1, matrix ×
// matrix) or a decode step (T = 1, matrix × vector). Keys and values of the
// T tokens are appended to the KV cache before attention, so every query
// attends to all cached positions up to and including its own.
//
// Notation: h hidden, H query heads, KV key/value heads, d head_dim,
// I intermediate, V vocab, T tokens in this call, C the KV cache capacity.
// Intermediates are named as in llama.cpp's qwen2 graph.

import (
	"context"
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

// prefillChunk bounds the tokens of one forward call. Prefill runs the
// prompt in chunks of this size: the weights are still read once per 512
// tokens (the batching that makes prefill fast), and the activation buffers
// stay at 512 rows (18 MiB for ffn_gate of a 1.5B model instead of 112 MiB
// for 3,139 tokens). Cancellation is checked between layers of each chunk.
const prefillChunk = 512

// forward runs tokens through the model at positions pos0…pos0+T-1 and
// returns the logits [rows, V] of the last position (rows = 1) or, when
// pr.allLogits, of every position (rows = T). The slice is reused by the
// next call. It fails only when ctx is cancelled (checked between layers).
func (m *Model) forward(ctx context.Context, tokens []int, pos0 int, pr *probes) ([]float32, error) {
	T := len(tokens)
	m.ensureBuffers(T)
	m.ensureContext(pos0 + T)
	b := &m.buf
	h := m.cfg.HiddenSize
	for t, id := range tokens {
		m.w.embed.row(b.x[t*h:(t+1)*h], id) // x = embed_tokens[id]; no scaling
	}
	for l := range m.w.layers {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m.attentionBlock(l, T, pos0, pr)
		m.mlpBlock(l, T, pos0, pr)
	}
	return m.outputHead(T, pr != nil && pr.allLogits), nil
}

// attentionBlock: x += o_proj(attention(rope(q), rope(k), v)) of attn_norm(x).
func (m *Model) attentionBlock(l, T, pos0 int, pr *probes) {
	c, lw, b := &m.cfg, &m.w.layers[l], &m.buf
	h, qDim, kvDim := c.HiddenSize, c.NumAttentionHeads*c.HeadDim, c.NumKeyValueHeads*c.HeadDim
	eps := float32(c.RMSNormEps)
	for t := range T {
		kernels.RMSNorm(b.xn[t*h:(t+1)*h], b.x[t*h:(t+1)*h], lw.attnNorm, eps) // attn_norm [T, h]
	}
	lw.wq.mul(m.pool, b.q, b.xn, T) // Qcur [T, H·d]
	lw.wk.mul(m.pool, b.k, b.xn, T) // Kcur [T, KV·d]
	lw.wv.mul(m.pool, b.v, b.xn, T) // Vcur [T, KV·d]
	for t := range T {
		kernels.Add(b.q[t*qDim:(t+1)*qDim], lw.bq)
		kernels.Add(b.k[t*kvDim:(t+1)*kvDim], lw.bk)
		kernels.Add(b.v[t*kvDim:(t+1)*kvDim], lw.bv)
		m.rope(b.q[t*qDim:(t+1)*qDim], pos0+t)
		m.rope(b.k[t*kvDim:(t+1)*kvDim], pos0+t)
	}
	m.storeKV(l, T, pos0)
	m.attend(l, T, pos0, pr)
	m.ablate(l, T, pr)
	lw.wo.mul(m.pool, b.attnOut, b.kqv, T)  // attn_out [T, h]
	kernels.Add(b.x[:T*h], b.attnOut[:T*h]) // ffn_inp = x + attn_out
}

// rope rotates every head of x (length heads·d) at position pos in
// half-split pairs (i, i+d/2) — not interleaved neighbours (qwen2.md §3.4).
func (m *Model) rope(x []float32, pos int) {
	d, half := m.cfg.HeadDim, m.cfg.HeadDim/2
	cos := m.ropeCos[pos*half : (pos+1)*half]
	sin := m.ropeSin[pos*half : (pos+1)*half]
	for o := 0; o < len(x); o += d {
		kernels.RoPE(x[o:o+d], cos, sin)
	}
}

// ropeTable fills cos/sin [C, d/2] for positions 0…C-1. As in the reference,
// inv_freq[i] = 1/θ^(2i/d) and angle = p·inv_freq are fp32 values (each
// rounded once from float64, ≤ 1 ulp from the reference's fp32 pow and
// product); cos and sin of that fp32 angle are taken in float64 and rounded.
func ropeTable(theta float64, d, C int) (cos, sin []float32) {
	half := d / 2
	cos, sin = make([]float32, C*half), make([]float32, C*half)
	for i := range half {
		invFreq := float32(1 / math.Pow(theta, float64(2*i)/float64(d)))
		for p := range C {
			angle := float64(float32(float64(p) * float64(invFreq)))
			cos[p*half+i] = float32(math.Cos(angle))
			sin[p*half+i] = float32(math.Sin(angle))
		}
	}
	return cos, sin
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
func (m *Model) kvOffset(l, kvh, pos int) int {
	return ((l*m.cfg.NumKeyValueHeads+kvh)*m.ctxCap + pos) * m.cfg.HeadDim
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
	c, b := &m.cfg, &m.buf
	d, nk := c.HeadDim, pos+1
	g := c.NumAttentionHeads / c.NumKeyValueHeads
	base := m.kvOffset(l, kvh, 0)
	keys, vals := m.kCache[base:base+nk*d], m.vCache[base:base+nk*d] // [nk, d]
	qs, kq := b.qScratch[worker][:g*d], b.scores[worker][:g*nk]
	scale := float32(1 / math.Sqrt(float64(d)))
	for i, v := range b.q[kvh*g*d : (kvh+1)*g*d] { // the group's heads are adjacent
		qs[i] = v * scale
	}
	kernels.MatMulF32(kq, nk, keys, qs, g, d) // kq [g, nk]
	for i := range g {
		row := kq[i*nk : (i+1)*nk]
		kernels.Softmax(row)
		pr.captureAttention(l, kvh*g+i, pos, row)
	}
	kernels.MatMulNN(b.kqv[kvh*g*d:], d, kq, nk, vals, d, g, nk, d) // kqv_out of the group's heads
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

// mlpBlock: x += down(silu(gate(ffn_norm(x))) ⊙ up(ffn_norm(x))) (SwiGLU).
func (m *Model) mlpBlock(l, T, pos0 int, pr *probes) {
	c, lw, b := &m.cfg, &m.w.layers[l], &m.buf
	h, I := c.HiddenSize, c.IntermediateSize
	for t := range T {
		kernels.RMSNorm(b.xn[t*h:(t+1)*h], b.x[t*h:(t+1)*h], lw.ffnNorm, float32(c.RMSNormEps)) // ffn_norm [T, h]
	}
	lw.wGate.mul(m.pool, b.gate, b.xn, T) // ffn_gate [T, I]
	lw.wUp.mul(m.pool, b.up, b.xn, T)     // ffn_up [T, I]
	m.pool.For(T, func(_, lo, hi int) {   // 4.6 M exps per 512-token chunk of Qwen2.5-1.5B, ~0.8 ms on one core
		for t := lo; t < hi; t++ {
			g := b.gate[t*I : (t+1)*I]
			kernels.SiLUMul(g, g, b.up[t*I:(t+1)*I]) // silu(gate)·up, in place
		}
	})
	for t := range T {
		pr.captureMLP(l, pos0+t, b.gate[t*I:(t+1)*I])
	}
	lw.wDown.mul(m.pool, b.ffnOut, b.gate, T) // ffn_out [T, h]
	kernels.Add(b.x[:T*h], b.ffnOut[:T*h])    // x = ffn_inp + ffn_out
}

// outputHead applies the final norm and the output head (lm_head, or the
// embedding when tied) to the last row, or to all T rows when all is set:
// the head is a V × h product, the largest single matrix of small models,
// so prefill runs it for the one position whose logits are sampled.
func (m *Model) outputHead(T int, all bool) []float32 {
	h, V, b := m.cfg.HiddenSize, m.cfg.VocabSize, &m.buf
	first := T - 1
	if all {
		first = 0
	}
	rows := T - first
	if len(b.logits) < rows*V {
		b.logits = make([]float32, rows*V) // [rows, V]
	}
	for t := first; t < T; t++ {
		kernels.RMSNorm(b.xn[(t-first)*h:(t-first+1)*h], b.x[t*h:(t+1)*h], m.w.outNorm, float32(m.cfg.RMSNormEps))
	}
	m.w.output.mul(m.pool, b.logits, b.xn, rows) // result_output [rows, V]
	return b.logits[:rows*V]
}
