package kernels

import (
	"encoding/binary"
	"fmt"
)

// Quant is a block-quantised weight format with ggml's block layouts
// (ggml-common.h). A row of cols weights is cols/BlockLen consecutive
// blocks; rows follow each other with no padding. Blocks are used in place:
// the kernels widen each block in registers, never into a copy of the
// matrix.
type Quant uint8

const (
	// Q8_0: 32 weights in 34 bytes: f16 d, then 32 int8 q; w = d·q.
	Q8_0 Quant = iota + 1
	// Q4_0: 32 weights in 18 bytes: f16 d, then 16 bytes whose low nibbles
	// are weights 0-15 and high nibbles 16-31; w = d·(q − 8).
	Q4_0
	// Q4_K: 256 weights in 144 bytes: f16 d, f16 dmin, 12 bytes packing
	// eight 6-bit scales and eight 6-bit mins, 128 bytes of nibbles. Weight
	// j of sub-block s (32 weights) is d·sc[s]·q − dmin·m[s].
	Q4K
	// Q6_K: 256 weights in 210 bytes: 128 bytes of low nibbles, 64 bytes
	// of high 2-bit pairs, 16 int8 scales (one per 16 weights), f16 d;
	// w = d·sc·(q − 32) with q 6 bits.
	Q6K
	// Q5_K: Q4_K's scales and mins with a fifth bit per weight (q5k.go).
	Q5K
)

var quantNames = [...]string{Q8_0: "Q8_0", Q4_0: "Q4_0", Q4K: "Q4_K", Q6K: "Q6_K", Q5K: "Q5_K"}

func (q Quant) String() string {
	if q > 0 && int(q) < len(quantNames) {
		return quantNames[q]
	}
	return fmt.Sprintf("Quant(%d)", int(q))
}

// Quants lists every format.
func Quants() []Quant { return []Quant{Q8_0, Q4_0, Q4K, Q6K, Q5K} }

// BlockLen is the number of weights in one block.
func (q Quant) BlockLen() int {
	if q == Q4K || q == Q6K || q == Q5K {
		return 256
	}
	return 32
}

// BlockBytes is the size of one block.
func (q Quant) BlockBytes() int {
	switch q {
	case Q8_0:
		return 34
	case Q4_0:
		return 18
	case Q4K:
		return 144
	case Q6K:
		return 210
	case Q5K:
		return 176
	}
	panic("kernels: unknown Quant")
}

// RowBytes is the size of a row of cols weights (cols a multiple of BlockLen).
func (q Quant) RowBytes(cols int) int { return cols / q.BlockLen() * q.BlockBytes() }

func f16At(b []byte) float32 { return F16ToF32(binary.LittleEndian.Uint16(b)) }

// DequantRow widens one row: dst gets len(dst) weights from the blocks at
// src (len(dst) a multiple of BlockLen). It is the readable definition of
// every layout; the kernels below compute the same values.
func DequantRow(q Quant, dst []float32, src []byte) {
	n, bl, bb := len(dst), q.BlockLen(), q.BlockBytes()
	if n%bl != 0 || len(src) < n/bl*bb {
		panic("kernels: DequantRow: bad lengths")
	}
	cur.dequantRow(q, dst, src[:n/bl*bb])
}

// dequantRowGeneric is the readable reference of DequantRow.
func dequantRowGeneric(q Quant, dst []float32, src []byte) {
	n, bl, bb := len(dst), q.BlockLen(), q.BlockBytes()
	for i := 0; i < n/bl; i++ {
		dequantBlock(q, dst[i*bl:(i+1)*bl], src[i*bb:(i+1)*bb])
	}
}

func dequantBlock(q Quant, y []float32, b []byte) {
	switch q {
	case Q8_0:
		d := f16At(b)
		for j := range 32 {
			y[j] = d * float32(int8(b[2+j]))
		}
	case Q4_0:
		d := f16At(b)
		for j := range 16 {
			y[j] = d * float32(int(b[2+j]&15)-8)
			y[j+16] = d * float32(int(b[2+j]>>4)-8)
		}
	case Q4K:
		dequantQ4K(y, b)
	case Q6K:
		dequantQ6K(y, b)
	case Q5K:
		dequantQ5K(y, b)
	}
}

// ScaleMinK4 unpacks the 6-bit scale and min of sub-block s (0…7) of a
// Q4_K block from its 12 scale bytes: sub-blocks 0-3 keep them in the low 6
// bits of bytes s and s+4; 4-7 in the nibbles of bytes s+4, with their top
// two bits in the spare high bits of bytes s-4 and s.
func ScaleMinK4(s int, q []byte) (sc, m uint8) {
	if s < 4 {
		return q[s] & 63, q[s+4] & 63
	}
	return q[s+4]&0xf | (q[s-4]>>6)<<4, q[s+4]>>4 | (q[s]>>6)<<4
}

func dequantQ4K(y []float32, b []byte) {
	d, dmin := f16At(b[0:]), f16At(b[2:])
	scales, qs := b[4:16], b[16:144]
	for s := 0; s < 8; s += 2 { // two sub-blocks share 32 bytes: low, then high nibbles
		sc0, m0 := ScaleMinK4(s, scales)
		sc1, m1 := ScaleMinK4(s+1, scales)
		d0, d1 := d*float32(sc0), d*float32(sc1)
		o0, o1 := dmin*float32(m0), dmin*float32(m1)
		q := qs[s/2*32:]
		for l := range 32 {
			y[s*32+l] = d0*float32(q[l]&15) - o0
			y[s*32+32+l] = d1*float32(q[l]>>4) - o1
		}
	}
}

// dequantQ6K: each half of 128 weights takes 64 bytes of ql, 32 of qh and
// 8 scales; weight l+32·k (l < 32, k < 4) takes a nibble of ql (low for
// k = 0, 1, high for 2, 3; byte l or l+32) and bits 2k, 2k+1 of qh[l].
func dequantQ6K(y []float32, b []byte) {
	d := f16At(b[208:])
	for h := range 2 {
		ql, qh, sc := b[h*64:], b[128+h*32:], b[192+h*8:]
		for l := range 32 {
			is := l / 16
			q1 := int(ql[l]&15|(qh[l]>>0&3)<<4) - 32
			q2 := int(ql[l+32]&15|(qh[l]>>2&3)<<4) - 32
			q3 := int(ql[l]>>4|(qh[l]>>4&3)<<4) - 32
			q4 := int(ql[l+32]>>4|(qh[l]>>6&3)<<4) - 32
			o := y[h*128:]
			o[l] = d * float32(int8(sc[is])) * float32(q1)
			o[l+32] = d * float32(int8(sc[is+2])) * float32(q2)
			o[l+64] = d * float32(int8(sc[is+4])) * float32(q3)
			o[l+96] = d * float32(int8(sc[is+6])) * float32(q4)
		}
	}
}

// MatVecQ computes out[r] = Σ_c W[r][c]·x[c] for r < len(out), cols =
// len(x), with W stored as q blocks: w holds len(out) rows of
// q.RowBytes(cols) bytes. It is decode's hot loop for quantised files: each
// block is read once and widened in registers; x stays fp32.
func MatVecQ(q Quant, out []float32, w []byte, x []float32) {
	cols := len(x)
	if cols%q.BlockLen() != 0 {
		panic("kernels: MatVecQ: cols not a multiple of the block")
	}
	rb := q.RowBytes(cols)
	if len(w) < len(out)*rb {
		panic("kernels: MatVecQ: w too short")
	}
	if len(out) == 0 {
		return
	}
	cur.matVecQ(q, out, w[:len(out)*rb], x)
}

// matVecQGeneric is the readable reference: widen a block, dot it.
func matVecQGeneric(q Quant, out []float32, w []byte, x []float32) {
	var blk [256]float32
	bl, bb := q.BlockLen(), q.BlockBytes()
	rb := q.RowBytes(len(x))
	for r := range out {
		row := w[r*rb : (r+1)*rb]
		var s float32
		for i := 0; i < len(x)/bl; i++ {
			dequantBlock(q, blk[:bl], row[i*bb:])
			for j, v := range blk[:bl] {
				s += v * x[i*bl+j]
			}
		}
		out[r] = s
	}
}

// MatMulQ computes out[t·ldOut+r] = Σ_c W[r][c]·x[t·cols+c] for t < n and
// the rows of w (len(w)/q.RowBytes(cols)): prefill's Y = X·Wᵀ for q blocks.
// It widens qPanel rows at a time into ws and runs the f32 prefill kernel
// on them, so the widening is paid once per row for all n tokens and the
// scratch stays qPanel × cols (never the matrix). A nil ws borrows one.
//
// A level with its own quantised prefill (kernelSet.matMulQ: AVX2 from
// nBcast2F32 tokens, AVX-512 once x outgrows half of L2) widens each
// block of W into its packed panel instead, with the same products in
// the same order, bit for bit.
func MatMulQ(ws *Workspace, q Quant, out []float32, ldOut int, w []byte, x []float32, n, cols int) {
	if cur.matMulQ != nil && n > 0 && cols > 0 && cols%q.BlockLen() == 0 {
		checkMatMul("MatMulQ", len(out), ldOut, len(x), n, len(w)/q.RowBytes(cols), cols)
		if ws == nil {
			ws = workspaces.Get().(*Workspace)
			defer workspaces.Put(ws)
		}
		cur.matMulQ(ws, q, out, ldOut, w, x[:n*cols], n, cols)
		return
	}
	matMulQPanels(ws, q, out, ldOut, w, x, n, cols)
}

// matMulQPanels is MatMulQ on the f32 prefill kernel, qPanel rows widened
// at a time.
func matMulQPanels(ws *Workspace, q Quant, out []float32, ldOut int, w []byte, x []float32, n, cols int) {
	forQPanels(ws, "MatMulQ", q, out, ldOut, w, x, n, cols, func(ws *Workspace, r0, p, rb int) {
		panel := grow(&ws.qf, qPanel*cols)
		for i := range p {
			DequantRow(q, panel[i*cols:(i+1)*cols], w[(r0+i)*rb:])
		}
		cur.matMulF32(out[r0:], ldOut, panel[:p*cols], x[:n*cols], n, cols)
	})
}

// MatMulQBF16 is MatMulQ for a prefill whose activations r holds rounded
// to bf16 (RoundedX: prepared for n × cols and rounded from x): each
// panel of qPanel rows is widened as MatMulQ widens it, rounded to bf16
// (to nearest even: each weight moves by at most 2^-9 of itself) and
// multiplied by the VDPBF16PS tiles, which do twice the products of the
// fp32 kernel per instruction. For the arithmetic of a quantised file
// whose decode already rounds activations to 8 bits (IntegerQuant). An
// unprepared r, or a level without bf16 products, runs MatMulQ.
func MatMulQBF16(ws *Workspace, q Quant, out []float32, ldOut int, w []byte, x []float32, r *RoundedX, n, cols int) {
	if r == nil || !r.use || r.n != n || r.cols != cols || cur.matMulBF16X == nil {
		MatMulQ(ws, q, out, ldOut, w, x, n, cols)
		return
	}
	forQPanels(ws, "MatMulQBF16", q, out, ldOut, w, x, n, cols, func(ws *Workspace, r0, p, rb int) {
		row, panel := grow(&ws.qf, cols), grow(&ws.qb, qPanel*cols)
		for i := range p {
			if q == Q4K && cur.widenQ4KBF16 != nil {
				cur.widenQ4KBF16(panel[i*cols:(i+1)*cols], w[(r0+i)*rb:(r0+i+1)*rb])
				continue
			}
			DequantRow(q, row, w[(r0+i)*rb:])
			roundRowsBF16(panel[i*cols:(i+1)*cols], row)
		}
		cur.matMulBF16X(ws, out[r0:], ldOut, panel[:p*cols], x[:n*cols], r.xb[:n*cols], n, cols)
	})
}

// forQPanels checks a quantised product's shapes and calls panel for the
// rows r0 … r0+p-1 of each qPanel band of w (rb bytes a row), with a
// workspace (ws, or a borrowed one when nil).
func forQPanels(ws *Workspace, name string, q Quant, out []float32, ldOut int, w []byte, x []float32, n, cols int, panel func(ws *Workspace, r0, p, rb int)) {
	if n <= 0 || cols <= 0 {
		return
	}
	if cols%q.BlockLen() != 0 {
		panic("kernels: " + name + ": cols not a multiple of the block")
	}
	if ws == nil {
		ws = workspaces.Get().(*Workspace)
		defer workspaces.Put(ws)
	}
	rb := q.RowBytes(cols)
	rows := len(w) / rb
	checkMatMul(name, len(out), ldOut, len(x), n, rows, cols)
	for r0 := 0; r0 < rows; r0 += qPanel {
		panel(ws, r0, min(qPanel, rows-r0), rb)
	}
}

// qPanel rows are widened at a time by MatMulQ: a multiple of the f32
// prefill kernel's 32-row panels, small enough to stay in L2 (32 rows of
// 8,960 columns: 1.1 MiB).
const qPanel = 32
