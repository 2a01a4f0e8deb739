package kernels

// Integer decode for quantised weights: the activation row x is rounded to
// 8 bits once per token (per block of 32 columns, as llama.cpp's Q8_0
// activations), and each weight block is multiplied with it in integers;
// only the block's scales are floats. The weights are never widened, so a
// decode step costs little more than reading the file's bytes.
//
// Rounding x costs accuracy, with a bound: x_c = dx_b·qx_c + e_c with
// |e_c| ≤ dx_b/2 (dx_b = max|x| over the block / 127), so the product moves
// by at most Σ_c |W[r][c]|·dx_b/2 against the fp32 one (quant8_test.go
// checks every level against it, and against the float64 product with the
// rounded x within fp32 summation error). Exact() keeps MatVecQ instead.

// QuantizedX is an activation row rounded to int8 per block of 32 columns,
// with what the kernels need beside it. The zero value is ready to use; it
// keeps its buffers between calls, so one per worker pool (the engine's
// decode buffers) allocates once.
type QuantizedX struct {
	q    []int8    // [cols] round(x_c/dx_b), |q| ≤ 127
	dc   []float32 // [cols/32] dx_b, one per block
	de   []float32 // [cols/4] dx_b for every 4 columns: the lanes of a VPDPBUSD result
	n128 []int32   // [cols/4] −128·Σ of each 4 consecutive q: Q8_0's lanes start there (weights + 128)
	n32  []int32   // [cols/4] −32·Σ of each 4 q: Q6_K's (its weights − 32)
	s    []float32 // [cols/32] dx_b·Σ q_c over the block: Σ x̂ for the mins of Q4_K
	// k and kds: q, dx and Σ x̂ in the lane order of Zen 4's Q4_K kernel
	// (q4kLaneX, amd64), where laned says this row's are there.
	k     []int8    // [cols] q, per 256: sub-blocks 0-3 twice, then 4-7 twice
	kds   []float32 // [cols/256 × 16] [dx_s (odd s: / 16), Σ x̂_s]
	laned bool
	// d6 and g6: each group of 16 columns' dx and −32·Σq in the lane order
	// of the AVX2 Q6_K kernels (layQ6KGroups), rows of whole blocks.
	d6   []float32 // [cols/16]
	g6   []int32   // [cols/16]
	cols int
}

// Cols is the length of the row last quantised.
func (a *QuantizedX) Cols() int { return a.cols }

// Quantize rounds x (len a multiple of 32) into a: dx_b = m/127 with m =
// max(max|x| over the block, 2⁻¹⁰⁰), q = x·(127/m) rounded to nearest
// even. The floor on m keeps 127/m finite (a block of zeros gets q = 0)
// and far below any activation a model has.
func (a *QuantizedX) Quantize(x []float32) {
	n := len(x)
	if n%32 != 0 {
		panic("kernels: QuantizedX.Quantize: len(x) not a multiple of 32")
	}
	a.cols = n
	grow(&a.q, n)
	grow(&a.dc, n/32)
	grow(&a.de, n/4)
	grow(&a.n128, n/4)
	grow(&a.n32, n/4)
	grow(&a.s, n/32)
	a.laned = false
	if n > 0 {
		cur.quantizeX(a, x)
		a.layQ6KGroups()
	}
}

// q6kGroupOrder: the groups of 16 columns of a half block (128) in the
// lanes of the AVX2 Q6_K kernels' group sums, as VPACKSSDW and VPHADDD
// leave them within each 128-bit half of a Y register.
var q6kGroupOrder = [8]int{0, 2, 4, 6, 1, 3, 5, 7}

// layQ6KGroups writes a.d6 and a.g6 from the row quantised in a, for the
// AVX2 Q6_K kernels (dotRowsQ6KAVX2): per half block h and lane i, group
// g = 8h + q6kGroupOrder[i] takes dx of its block of 32 and −32·Σq over
// its 16 columns (the sum of its four n32). Those kernels then scale a
// half with one multiply and correct it with one add, where they took a
// permute and a multiply, and four adds. Every row whose cols are whole
// blocks of 256 (Q6_K's) gets them, whatever the level and the CPU, so
// no row reaches those kernels without: 1/16 of the row's length, about
// a microsecond for 8960 columns.
func (a *QuantizedX) layQ6KGroups() {
	if a.cols%256 != 0 {
		return
	}
	d6, g6 := grow(&a.d6, a.cols/16), grow(&a.g6, a.cols/16)
	for h := range a.cols / 128 {
		for i, o := range q6kGroupOrder {
			g := 8*h + o
			n := a.n32[4*g : 4*g+4]
			d6[8*h+i], g6[8*h+i] = a.dc[g/2], n[0]+n[1]+n[2]+n[3]
		}
	}
}

// roundEven rounds |t| < 2²² to the nearest integer, ties to even, as
// VCVTPS2DQ does: adding 1.5·2²³ leaves no bits below the unit. The
// conversions keep each step a float32 operation (no fused add).
func roundEven(t float32) float32 {
	const magic = 0x1.8p23
	return float32(float32(t+magic) - magic)
}

// qxFloor is 2⁻¹⁰⁰, the least m of Quantize.
const qxFloor = 0x1p-100

// quantizeXGeneric is the readable reference of Quantize.
func quantizeXGeneric(a *QuantizedX, x []float32) {
	for b := 0; b < len(x)/32; b++ {
		xb, qb := x[b*32:(b+1)*32], a.q[b*32:(b+1)*32]
		var amax float32
		for _, v := range xb {
			amax = max(amax, abs32(v))
		}
		amax = max(amax, qxFloor)
		d, id := amax/127, 127/amax
		var sum int32
		for j, v := range xb {
			qb[j] = int8(roundEven(float32(v * id))) // the product rounded first: arm64 would fuse it with roundEven's add
			sum += int32(qb[j])
		}
		a.dc[b], a.s[b] = d, d*float32(sum)
		for g := range 8 {
			a.de[b*8+g] = d
			sum4 := int32(qb[4*g]) + int32(qb[4*g+1]) + int32(qb[4*g+2]) + int32(qb[4*g+3])
			a.n128[b*8+g], a.n32[b*8+g] = -128*sum4, -32*sum4
		}
	}
}

// IntegerQuant reports whether MatVecQ8 runs integer kernels for q at the
// active level (Q8_0, Q4_K, Q5_K and Q6_K; not under Exact). When false
// the engine uses MatVecQ.
func IntegerQuant(q Quant) bool {
	return !exact && cur.matVecQ8 != nil && hasQ8Kernel(q)
}

// hasQ8Kernel: the formats MatVecQ8 multiplies (all but Q4_0, rare in the
// files people hold).
func hasQ8Kernel(q Quant) bool { return q == Q8_0 || q == Q4K || q == Q5K || q == Q6K }

// QuantArithmetic says in a few words how decode (and prefill, where the
// level has tiles for q) multiplies q weights at the active level and
// arithmetic: for the Model panel and run --json.
func QuantArithmetic(q Quant) string { return Current().QuantArithmetic(q) }

// MatVecQ8 computes out[r] = Σ_c W[r][c]·x̂_c for r < len(out), with W
// stored as q blocks (w holds len(out) rows of q.RowBytes(a.Cols())
// bytes) and x̂ the row a holds: dx_b·q_c. Sums inside a block (Q4_K: a
// sub-block of 32; Q6_K: a group of 16) are exact integers; the scales
// multiply them in fp32. Q4_K's mins multiply Σ x̂ of each sub-block, so
// that the whole weight d·sc·q − dmin·m meets x̂ and the error stays
// Σ|W|·|x − x̂| (with the exact Σx it would be Σ|d·sc·q|·|x − x̂|, up to
// twice as large). The caller checks IntegerQuant(q) first.
func MatVecQ8(q Quant, out []float32, w []byte, a *QuantizedX) {
	if !hasQ8Kernel(q) {
		panic("kernels: MatVecQ8: no integer kernel for " + q.String())
	}
	if a.cols%q.BlockLen() != 0 {
		panic("kernels: MatVecQ8: cols not a multiple of the block")
	}
	rb := q.RowBytes(a.cols)
	if len(w) < len(out)*rb {
		panic("kernels: MatVecQ8: w too short")
	}
	if len(out) == 0 || a.cols == 0 {
		clear(out)
		return
	}
	mv := cur.matVecQ8
	if mv == nil {
		mv = matVecQ8Generic
	}
	mv(q, out, w[:len(out)*rb], a)
}

// MatMulQ8 is MatVecQ8 for several tokens at once: out[i·ldOut+r] = Σ_c
// W[r][c]·x̂_i[c] for tokens i < len(xs) and rows r < len(w)/RowBytes, every
// xs[i] quantised from a row of the same length. Each output is the dot
// product MatVecQ8 defines (the same rounding of the activations), summed
// as the level's multi-token kernel sums it (NEONI8MM: SMMLA tiles for
// Q8_0), else by MatVecQ8 token by token; it does not depend on which rows
// or tokens a call is given.
func MatMulQ8(q Quant, out []float32, ldOut int, w []byte, xs []*QuantizedX) {
	if len(xs) == 0 {
		return
	}
	rb := q.RowBytes(xs[0].cols)
	rows := len(w) / rb
	for _, a := range xs {
		if a.cols != xs[0].cols {
			panic("kernels: MatMulQ8: tokens of different lengths")
		}
	}
	if rows == 0 {
		return
	}
	if len(out) < (len(xs)-1)*ldOut+rows || ldOut < rows {
		panic("kernels: MatMulQ8: out too short")
	}
	if cur.matMulQ8 != nil && xs[0].cols > 0 && hasQ8Kernel(q) {
		cur.matMulQ8(q, out, ldOut, w[:rows*rb], xs)
		return
	}
	matMulQ8ByToken(q, out, ldOut, w[:rows*rb], xs)
}

// matMulQ8ByToken is MatMulQ8 as MatVecQ8 one token at a time.
func matMulQ8ByToken(q Quant, out []float32, ldOut int, w []byte, xs []*QuantizedX) {
	rows := len(w) / q.RowBytes(xs[0].cols)
	for i, a := range xs {
		MatVecQ8(q, out[i*ldOut:i*ldOut+rows], w, a)
	}
}

// matVecQ8Generic is the readable reference of MatVecQ8.
func matVecQ8Generic(q Quant, out []float32, w []byte, a *QuantizedX) {
	rb := q.RowBytes(a.cols)
	for r := range out {
		row := w[r*rb : (r+1)*rb]
		switch q {
		case Q8_0:
			out[r] = dotQ8_0X(row, a)
		case Q4K:
			out[r] = dotQ4KX(row, a)
		case Q5K:
			out[r] = dotQ5KX(row, a)
		case Q6K:
			out[r] = dotQ6KX(row, a)
		}
	}
}

// dotInt8 is Σ_j w_j·x_j over equal-length runs, in exact integers.
func dotInt8(w []int8, x []int8) int32 {
	var s int32
	for j := range w {
		s += int32(w[j]) * int32(x[j])
	}
	return s
}

// dotQ8_0X: Σ_b d_b·dx_b·Σ_j q_j·qx_j over the row's blocks of 34 bytes.
func dotQ8_0X(row []byte, a *QuantizedX) float32 {
	var s float32
	var qw [32]int8
	for b := 0; b < a.cols/32; b++ {
		blk := row[b*34:]
		for j := range 32 {
			qw[j] = int8(blk[2+j])
		}
		s += f16At(blk) * a.dc[b] * float32(dotInt8(qw[:], a.q[b*32:(b+1)*32]))
	}
	return s
}

// dotQ4KX: per sub-block s of 32 weights (one activation block),
// d·sc[s]·dx·Σ q·qx − dmin·m[s]·dx·Σ qx.
func dotQ4KX(row []byte, a *QuantizedX) float32 {
	var s float32
	var qw [32]int8
	for i := 0; i < a.cols/256; i++ {
		blk := row[i*144:]
		d, dmin := f16At(blk), f16At(blk[2:])
		for sb := range 8 {
			sc, m := ScaleMinK4(sb, blk[4:16])
			nib := blk[16+32*(sb/2):]
			for l := range 32 {
				qw[l] = int8(nib[l] >> (4 * (sb % 2)) & 15)
			}
			xb := i*8 + sb
			s += d*float32(sc)*a.dc[xb]*float32(dotInt8(qw[:], a.q[xb*32:(xb+1)*32])) - dmin*float32(m)*a.s[xb]
		}
	}
	return s
}

// dotQ5KX is dotQ4KX with a fifth bit: bit s of qh[l] adds 16 to weight
// l of sub-block s (q5k.go).
func dotQ5KX(row []byte, a *QuantizedX) float32 {
	var s float32
	var qw [32]int8
	for i := 0; i < a.cols/256; i++ {
		blk := row[i*176:]
		d, dmin := f16At(blk), f16At(blk[2:])
		qh, qs := blk[16:48], blk[48:176]
		for sb := range 8 {
			sc, m := ScaleMinK4(sb, blk[4:16])
			nib := qs[32*(sb/2):]
			for l := range 32 {
				qw[l] = int8(nib[l]>>(4*(sb%2))&15 | (qh[l]>>sb&1)<<4)
			}
			xb := i*8 + sb
			s += d*float32(sc)*a.dc[xb]*float32(dotInt8(qw[:], a.q[xb*32:(xb+1)*32])) - dmin*float32(m)*a.s[xb]
		}
	}
	return s
}

// dotQ6KX: per group g of 16 weights, d·sc[g]·dx·Σ (q − 32)·qx, the bits
// of q gathered as in dequantQ6K.
func dotQ6KX(row []byte, a *QuantizedX) float32 {
	var s float32
	var w [256]int8
	for i := 0; i < a.cols/256; i++ {
		blk := row[i*210:]
		d := f16At(blk[208:])
		for h := range 2 {
			ql, qh := blk[h*64:], blk[128+h*32:]
			for l := range 32 {
				w[h*128+l] = int8(ql[l]&15|(qh[l]&3)<<4) - 32
				w[h*128+l+32] = int8(ql[l+32]&15|(qh[l]>>2&3)<<4) - 32
				w[h*128+l+64] = int8(ql[l]>>4|(qh[l]>>4&3)<<4) - 32
				w[h*128+l+96] = int8(ql[l+32]>>4|(qh[l]>>6&3)<<4) - 32
			}
		}
		for g := range 16 { // group g: weights 16g…16g+15, scale byte 192+g
			c := i*256 + 16*g
			s += d * float32(int8(blk[192+g])) * a.dc[c/32] * float32(dotInt8(w[16*g:16*g+16], a.q[c:c+16]))
		}
	}
	return s
}
