package engine

import (
	"strings"
	"unsafe"

	"loupe/engine/pool"
	"loupe/kernels"
)

// mat is a weight matrix, rows × cols row-major, stored as the checkpoint
// gives it and used in place from the memory map: bf16, f16, f32, or
// quantised blocks of a GGUF file (Q8_0, Q4_0, Q4_K, Q5_K, Q6_K: each row
// is cols/qt.BlockLen() blocks). Exactly one of bf, h, f and q is set.
type mat struct {
	rows, cols int
	bf         []kernels.BF16 // [rows*cols] or nil
	h          []kernels.F16  // [rows*cols] or nil
	f          []float32      // [rows*cols] or nil
	q          []byte         // [rows × qt.RowBytes(cols)] or nil
	qt         kernels.Quant
	exactIn    bool // prefill keeps this matrix's activations in fp32 at every level
	part       part // its role, for auto's arithmetic policy (arith.go)
}

// bytes is what one pass over the matrix reads: the file's real bytes.
func (w *mat) bytes() int64 {
	switch {
	case w.bf != nil:
		return int64(len(w.bf)) * 2
	case w.h != nil:
		return int64(len(w.h)) * 2
	case w.q != nil:
		return int64(len(w.q))
	}
	return int64(len(w.f)) * 4
}

// data views the matrix's bytes in place (no copy): what a pass reads.
func (w *mat) data() []byte {
	switch {
	case w.bf != nil:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w.bf))), len(w.bf)*2)
	case w.h != nil:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w.h))), len(w.h)*2)
	case w.q != nil:
		return w.q
	case w.f != nil:
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w.f))), len(w.f)*4)
	}
	return nil
}

// WeightPages views the bytes of every weight matrix, the output head
// last, in place: the memory decode reads, for a bandwidth probe that
// allocates nothing (perf.MeasureBandwidthOver). The views are valid
// until Close; a tied head is not listed twice.
func (m *Model) WeightPages() [][]byte {
	var out [][]byte
	for _, w := range append(m.allMatrices(), &m.w.output) {
		if d := w.data(); len(d) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// row widens row r into out (length cols).
func (w *mat) row(out []float32, r int) {
	if w.q != nil {
		rb := w.qt.RowBytes(w.cols)
		kernels.DequantRow(w.qt, out[:w.cols], w.q[r*rb:(r+1)*rb])
		return
	}
	lo := r * w.cols
	switch {
	case w.bf != nil:
		for i, v := range w.bf[lo : lo+w.cols] {
			out[i] = v.Float32()
		}
	case w.h != nil:
		kernels.WidenF16(out, w.h[lo:lo+w.cols])
	default:
		copy(out, w.f[lo:lo+w.cols])
	}
}

// rowRange views rows lo…hi-1 of w (an expert of a stacked tensor, the
// gate half of a fused gate_up_proj) without copying.
func (w *mat) rowRange(lo, hi int) mat {
	out := mat{rows: hi - lo, cols: w.cols, qt: w.qt}
	switch {
	case w.q != nil:
		rb := w.qt.RowBytes(w.cols)
		out.q = w.q[lo*rb : hi*rb : hi*rb]
	case w.bf != nil:
		out.bf = w.bf[lo*w.cols : hi*w.cols : hi*w.cols]
	case w.h != nil:
		out.h = w.h[lo*w.cols : hi*w.cols : hi*w.cols]
	default:
		out.f = w.f[lo*w.cols : hi*w.cols : hi*w.cols]
	}
	return out
}

// mul computes Y = X·Wᵀ: out[t·rows+r] = Σ_c W[r][c]·x[t·cols+c] for t < n.
// x is [n, cols], out is [n, rows]. Workers take disjoint bands of rows, so
// every output element is summed by one kernel call in a fixed order and the
// result does not depend on the number of threads.
//
// xq is the decode workspace of the integer path (see vec); nil borrows
// one when needed. rx, when not nil, holds x rounded to bf16 for the bf16
// kernels that multiply bf16 activations: the workers round it once, each
// a share of the rows, and every band reads it (nil: each band's kernel
// call rounds all of x again).
func (w *mat) mul(p *pool.Pool, out, x []float32, n int, xq *kernels.QuantizedX, rx *kernels.RoundedX, xr *kernels.QuantizedRows) {
	if n == 1 {
		w.vec(p, out[:w.rows], x[:w.cols], xq)
		return
	}
	if w.tiledAt(kernels.Current()) {
		w.mulQ8(p, out, x, n, xr)
		return
	}
	round := w.roundsInput()
	if rx != nil && round && rx.Prepare(n, w.cols) {
		p.For(n, func(_, lo, hi int) { rx.Round(x[:n*w.cols], lo, hi) })
	} else {
		rx = nil
	}
	g := (w.rows + rowGroup - 1) / rowGroup
	p.For(g, func(_, glo, ghi int) {
		lo, hi := glo*rowGroup, min(w.rows, ghi*rowGroup)
		if w.q != nil {
			rb := w.qt.RowBytes(w.cols)
			kernels.MatMulQBF16(nil, w.qt, out[lo:], w.rows, w.q[lo*rb:hi*rb], x[:n*w.cols], rx, n, w.cols) // rx nil: MatMulQ
		} else if w.bf != nil && !round {
			kernels.MatMulBF16Exact(out[lo:], w.rows, w.bf[lo*w.cols:hi*w.cols], x[:n*w.cols], n, w.cols)
		} else if w.bf != nil {
			kernels.MatMulBF16X(out[lo:], w.rows, w.bf[lo*w.cols:hi*w.cols], x[:n*w.cols], rx, n, w.cols)
		} else if w.h != nil {
			kernels.MatMulF16(nil, out[lo:], w.rows, w.h[lo*w.cols:hi*w.cols], x[:n*w.cols], n, w.cols)
		} else {
			kernels.MatMulF32(out[lo:], w.rows, w.f[lo*w.cols:hi*w.cols], x[:n*w.cols], n, w.cols)
		}
	})
}

// mulQ8 is mul for a quantised w with integer tiles (kernels.Q8Tiles):
// the workers round x's rows to 8 bits into xr (nil: a new one), each a
// share of the tokens, then multiply bands of rows by all of them.
func (w *mat) mulQ8(p *pool.Pool, out, x []float32, n int, xr *kernels.QuantizedRows) {
	if xr == nil {
		xr = new(kernels.QuantizedRows)
	}
	xr.Prepare(n, w.cols)
	p.For(n, func(_, lo, hi int) { xr.Quantize(x[:n*w.cols], lo, hi) })
	rb := w.qt.RowBytes(w.cols)
	p.For((w.rows+rowGroup-1)/rowGroup, func(_, glo, ghi int) {
		lo, hi := glo*rowGroup, min(w.rows, ghi*rowGroup)
		kernels.MatMulQ8Rows(nil, w.qt, out[lo:], w.rows, w.q[lo*rb:hi*rb], xr)
	})
}

// rowGroup aligns the workers' bands of rows in mul to the 32-row panels
// of the prefill kernels: only the matrix's last band can end in a partial
// panel (none for Qwen2.5, whose row counts are multiples of 32).
const rowGroup = 32

// vec is mul for one token: out[r] = Σ_c W[r][c]·x[c]. A quantised
// matrix with an integer kernel (kernels.IntegerQuant: not under
// kernels.Exact) rounds x to 8 bits once, into xq, before the workers
// split the rows; a nil xq is allocated here.
func (w *mat) vec(p *pool.Pool, out, x []float32, xq *kernels.QuantizedX) {
	if w.integer() {
		if xq == nil {
			xq = new(kernels.QuantizedX)
		}
		xq.Quantize(x)
	} else {
		xq = nil
	}
	p.For(w.rows, func(_, lo, hi int) { w.vecRowsX(out, x, xq, lo, hi) })
}

// integer reports whether decode multiplies w in integers: quantised
// blocks whose format has an integer kernel at the active level, and
// kernels.Exact off.
func (w *mat) integer() bool { return w.integerAt(kernels.Current()) }

// integerAt is integer under the kernel choice c.
func (w *mat) integerAt(c kernels.Choice) bool { return w.q != nil && c.IntegerQuant(w.qt) }

// tiledAt reports whether prefill multiplies w in integers under c, its
// activations rounded to 8 bits as decode rounds them (mulQ8): a
// quantised matrix whose prefill rounds its input and whose format has
// the level's tiles (kernels.Choice.Q8Tiles).
func (w *mat) tiledAt(c kernels.Choice) bool {
	return w.q != nil && w.roundsInputAt(c) && c.Q8Tiles(w.qt)
}

// vecRows is vec for rows lo…hi-1 only, on the calling goroutine, in fp32
// (quantised blocks widened): each row's dot product is the same whatever
// rows it is computed with.
func (w *mat) vecRows(out, x []float32, lo, hi int) { w.vecRowsX(out, x, nil, lo, hi) }

// vecRowsX is vecRows with xq, x rounded by xq.Quantize(x): a quantised w
// with an integer kernel uses it; nil keeps fp32.
func (w *mat) vecRowsX(out, x []float32, xq *kernels.QuantizedX, lo, hi int) {
	if xq != nil && w.integer() {
		rb := w.qt.RowBytes(w.cols)
		kernels.MatVecQ8(w.qt, out[lo:hi], w.q[lo*rb:hi*rb], xq)
	} else if w.q != nil {
		rb := w.qt.RowBytes(w.cols)
		kernels.MatVecQ(w.qt, out[lo:hi], w.q[lo*rb:hi*rb], x)
	} else if w.bf != nil {
		kernels.MatVecBF16(out[lo:hi], w.bf[lo*w.cols:hi*w.cols], x)
	} else if w.h != nil {
		kernels.MatVecF16(out[lo:hi], w.h[lo*w.cols:hi*w.cols], x)
	} else {
		kernels.MatVecF32(out[lo:hi], w.f[lo*w.cols:hi*w.cols], x)
	}
}

// layerWeights are the tensors of one decoder layer: llama.cpp's
// llama_layer, one struct for every architecture, each filling the fields
// its file uses (Qwen2: docs/spec/qwen2.md §2) and leaving the others empty.
type layerWeights struct {
	attnNorm []float32 // [h] input_layernorm.weight
	wq       mat       // [H·d, h] q_proj.weight
	bq       []float32 // [H·d]   q_proj.bias
	wk       mat       // [KV·d, h] k_proj.weight
	bk       []float32 // [KV·d]
	wv       mat       // [KV·d, h] v_proj.weight
	bv       []float32 // [KV·d]
	qNorm    []float32 // [d] q_norm.weight (Qwen3: RMSNorm of each query head)
	kNorm    []float32 // [d] k_norm.weight (Qwen3: of each key head)
	wo       mat       // [h, H·d] o_proj.weight (no bias)
	ffnNorm  []float32 // [h] post_attention_layernorm.weight
	wGate    mat       // [I, h] mlp.gate_proj.weight
	wUp      mat       // [I, h] mlp.up_proj.weight
	wDown    mat       // [h, I] mlp.down_proj.weight

	linear *deltaNetWeights // a Gated DeltaNet layer's mixer (Qwen3.5), instead of wq…wo
	moe    *moeWeights      // a sparse layer's router and experts (moe.go), instead of wGate…wDown
}

// matrices lists the layer's weight matrices that are set and read for
// every token (an MoE layer's routed experts are not: moeWeights.expertBytes).
func (lw *layerWeights) matrices() []*mat {
	var out []*mat
	all := []*mat{&lw.wq, &lw.wk, &lw.wv, &lw.wo, &lw.wGate, &lw.wUp, &lw.wDown}
	if d := lw.linear; d != nil {
		all = append(all, &d.wQKV, &d.wZ, &d.wB, &d.wA, &d.wOut)
	}
	if lw.moe != nil {
		all = append(all, lw.moe.matrices()...)
	}
	for _, w := range all {
		if w.rows > 0 {
			out = append(out, w)
		}
	}
	return out
}

// vectorFloats counts the floats of the layer's norms and biases.
func (lw *layerWeights) vectorFloats() int {
	n := len(lw.attnNorm) + len(lw.bq) + len(lw.bk) + len(lw.bv) + len(lw.qNorm) + len(lw.kNorm) + len(lw.ffnNorm)
	if d := lw.linear; d != nil {
		n += len(d.convT) + len(d.dtBias) + len(d.aLog) + len(d.norm)
	}
	return n
}

// weights are all tensors of the model.
type weights struct {
	embed   mat // [V, h] model.embed_tokens.weight
	layers  []layerWeights
	outNorm []float32 // [h] model.norm.weight
	output  mat       // [V, h] lm_head.weight, or embed when tied
	notUsed []string  // parts of the checkpoint not read (Qwen3.5: vision tower, MTP head)

	// metaQK: the Q and K rows of each head are in Meta's interleaved
	// order (GGUF llama files, docs/spec/llama.md §3); the llama file rotates them
	// with ropeMeta.
	metaQK bool
}

// QuantArithmetic is QuantArithmeticOf the kernels in use.
func (m *Model) QuantArithmetic() string { return m.QuantArithmeticOf(kernels.Current()) }

// QuantArithmeticOf says how decode multiplies the model's quantised
// matrices under the kernel choice c, one phrase per format in the order
// the layers use them, e.g. "Q4_K, Q6_K: int8 activations per 32
// (AVX512-VNNI VPDPBUSD)"; "" when no matrix is quantised.
func (m *Model) QuantArithmeticOf(c kernels.Choice) string {
	var order []kernels.Quant
	seen := map[kernels.Quant]bool{}
	add := func(w *mat) {
		if w.q != nil && !seen[w.qt] {
			seen[w.qt] = true
			order = append(order, w.qt)
		}
	}
	for i := range m.w.layers {
		for _, w := range m.w.layers[i].matrices() {
			add(w)
		}
	}
	add(&m.w.output)
	var parts []string
	byWay := map[string][]string{}
	for _, q := range order {
		how := c.QuantArithmetic(q)
		if byWay[how] == nil {
			parts = append(parts, how)
		}
		byWay[how] = append(byWay[how], q.String())
	}
	out := make([]string, len(parts))
	for i, how := range parts {
		out[i] = strings.Join(byWay[how], ", ") + ": " + how
	}
	return strings.Join(out, "; ")
}
