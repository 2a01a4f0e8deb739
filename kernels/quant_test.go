package kernels

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The oracle: each layout decoded in float64 straight from ggml's
// dequantize_row_* (written again here, apart from quant.go), giving every
// weight and the magnitude of the terms a kernel may sum to reach it
// (|d·sc·q| and |dmin·m| separately for Q4_K, whose kernels factor the
// mins out).

func f16x(b []byte) float64 { return float64(F16ToF32(binary.LittleEndian.Uint16(b))) }

// oracleRow returns the weights of one row and their term magnitudes.
func oracleRow(q Quant, row []byte, cols int) (w, mag []float64) {
	w, mag = make([]float64, cols), make([]float64, cols)
	bb := q.BlockBytes()
	for i := 0; i < cols/q.BlockLen(); i++ {
		b := row[i*bb:]
		y, m := w[i*q.BlockLen():], mag[i*q.BlockLen():]
		switch q {
		case Q8_0:
			for j := range 32 {
				y[j] = f16x(b) * float64(int8(b[2+j]))
				m[j] = math.Abs(y[j])
			}
		case Q4_0:
			for j := range 32 {
				nib := int(b[2+j%16] & 15)
				if j >= 16 {
					nib = int(b[2+j%16] >> 4)
				}
				y[j] = f16x(b) * float64(nib-8)
				m[j] = math.Abs(y[j])
			}
		case Q4K:
			d, dmin := f16x(b), f16x(b[2:])
			sc := b[4:16]
			for j := range 256 {
				s := j / 32
				var scale, mn int
				if s < 4 {
					scale, mn = int(sc[s]&63), int(sc[s+4]&63)
				} else {
					scale = int(sc[s+4]&15) | int(sc[s-4]>>6)<<4
					mn = int(sc[s+4]>>4) | int(sc[s]>>6)<<4
				}
				qb := b[16+32*(s/2)+j%32]
				nib := int(qb & 15)
				if s%2 == 1 {
					nib = int(qb >> 4)
				}
				y[j] = d*float64(scale)*float64(nib) - dmin*float64(mn)
				m[j] = math.Abs(d*float64(scale)*float64(nib)) + math.Abs(dmin*float64(mn))
			}
		case Q6K:
			d := f16x(b[208:])
			for j := range 256 {
				h, r := j/128, j%128
				k, l := r/32, r%32
				qlb := b[64*h+l+32*(k&1)]
				lo := int(qlb & 15)
				if k >= 2 {
					lo = int(qlb >> 4)
				}
				hi := int(b[128+32*h+l]>>(2*k)) & 3
				scale := float64(int8(b[192+8*h+l/16+2*k]))
				y[j] = d * scale * float64(lo|hi<<4-32)
				m[j] = math.Abs(y[j])
			}
		case Q5K:
			oracleQ5K(y[:256], m[:256], b)
		}
	}
	return w, mag
}

// randBlocks fills rows of random blocks: random bytes, with f16 scales
// drawn from a sane range (random bits would give Inf and NaN).
func randBlocks(r *rand.Rand, q Quant, rows, cols int) []byte {
	b := make([]byte, rows*q.RowBytes(cols))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	scale := func(p []byte) { binary.LittleEndian.PutUint16(p, F32ToF16(float32(r.NormFloat64()*0.01))) }
	for i := 0; i < len(b); i += q.BlockBytes() {
		switch q {
		case Q8_0, Q4_0:
			scale(b[i:])
		case Q4K, Q5K:
			scale(b[i:])
			scale(b[i+2:])
		case Q6K:
			scale(b[i+208:])
		}
	}
	return b
}

var quantCols = map[Quant][]int{
	Q8_0: {32, 64, 96, 1536, 8960},
	Q4_0: {32, 96, 1536},
	Q4K:  {256, 512, 1536, 8960},
	Q6K:  {256, 512, 1536, 8960},
	Q5K:  {256, 512, 1536, 2048},
}

func TestDequantRow(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(7, 8))
		for _, q := range Quants() {
			for _, cols := range quantCols[q] {
				b := randBlocks(r, q, 1, cols)
				want, _ := oracleRow(q, b, cols)
				got, check := guarded(t, cols, 3)
				DequantRow(q, got, b)
				check()
				for i := range got {
					// exact up to one rounding of d·sc·q − dmin·m in fp32
					if d := math.Abs(float64(got[i]) - want[i]); d > math.Abs(want[i])*u32*2+1e-30 && d > 1e-12 {
						t.Fatalf("%v cols %d: w[%d] = %v, want %v", q, cols, i, got[i], want[i])
					}
				}
			}
		}
	})
}

// TestDequantRowBitsEqualReference: every level widens to exactly the
// values of the readable dequantBlock (the SIMD code does the same fp32
// products in the same order), on blocks of random bytes, scales and
// nibbles of every pattern included.
func TestDequantRowBitsEqualReference(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(11, 12))
		for _, q := range Quants() {
			const nb = 7
			b := make([]byte, nb*q.BlockBytes())
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			for i := 0; i < len(b); i += q.BlockBytes() { // finite scales: f16 exponent below 31
				for _, o := range map[Quant][]int{Q8_0: {0}, Q4_0: {0}, Q4K: {0, 2}, Q5K: {0, 2}, Q6K: {208}}[q] {
					b[i+o+1] &= 0x7b
				}
			}
			want, got := make([]float32, nb*q.BlockLen()), make([]float32, nb*q.BlockLen())
			dequantRowGeneric(q, want, b)
			DequantRow(q, got, b)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%v: w[%d] = %v, reference %v", q, i, got[i], want[i])
				}
			}
		}
	})
}

func TestMatVecQ(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(9, 10))
		for _, q := range Quants() {
			for _, cols := range quantCols[q] {
				for _, rows := range []int{1, 3, 5} {
					for _, off := range offsets {
						w := randBlocks(r, q, rows, cols)
						x := randF32(r, cols, off)
						out, check := guarded(t, rows, off)
						MatVecQ(q, out, w, x)
						check()
						checkQ(t, fmt.Sprintf("%v %dx%d+%d", q, rows, cols, off), out, 1, rows, q, w, x)
					}
				}
			}
		}
	})
}

// checkQ compares out[t·ld+r] with the oracle's Σ_c W[r][c]·x[t·cols+c].
func checkQ(t *testing.T, what string, out []float32, n, ld int, q Quant, w []byte, x []float32) {
	t.Helper()
	checkQWithin(t, what, out, n, ld, q, w, x, 0)
}

// checkQWithin is checkQ with extra relative error allowed on Σ|w·x|.
func checkQWithin(t *testing.T, what string, out []float32, n, ld int, q Quant, w []byte, x []float32, extra float64) {
	t.Helper()
	cols := len(x) / n
	rb := q.RowBytes(cols)
	rows := len(w) / rb
	for r := range rows {
		wr, mag := oracleRow(q, w[r*rb:], cols)
		for tk := range n {
			var want, abs float64
			for c := range cols {
				xv := float64(x[tk*cols+c])
				want += wr[c] * xv
				abs += mag[c] * math.Abs(xv)
			}
			within(t, fmt.Sprintf("%s out[%d,%d]", what, tk, r), out[tk*ld+r], want, abs, sumTol(cols)+extra)
		}
	}
}

func TestMatMulQ(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(11, 12))
		for _, q := range Quants() {
			cols := quantCols[q][1]
			for _, sh := range [][2]int{{1, 1}, {33, 5}, {70, 17}, {64, 48}, {37, 53}} {
				rows, n := sh[0], sh[1]
				w := randBlocks(r, q, rows, cols)
				x := randF32(r, n*cols, 0)
				ld := rows + 3
				out := make([]float32, (n-1)*ld+rows)
				MatMulQ(nil, q, out, ld, w, x, n, cols)
				checkQ(t, fmt.Sprintf("%v %dx%d n=%d", q, rows, cols, n), out, n, ld, q, w, x)
			}
		}
	})
}

// TestMatMulQBF16: with the activations rounded to bf16 once (RoundedX,
// in two pieces as two workers round them) and the widened weights
// rounded too, the product stays within the fp32 bound plus 2^-9 for each
// rounding, against the float64 oracle on the exact blocks and x, at
// every level (where no bf16 products exist it is MatMulQ: fp32 bound).
// Bands of rows that start off a panel agree with a whole product.
func TestMatMulQBF16(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(17, 18))
		for _, q := range Quants() {
			cols := quantCols[q][1]
			for _, sh := range [][2]int{{33, 2}, {70, 17}, {64, 48}} {
				rows, n := sh[0], sh[1]
				w := randBlocks(r, q, rows, cols)
				x := randF32(r, n*cols, 0)
				ld := rows + 3
				var rx RoundedX
				extra := 0.0
				if rx.Prepare(n, cols) {
					extra = 2*bf16RoundTol + bf16RoundTol*bf16RoundTol
				}
				rx.Round(x, 0, n/2)
				rx.Round(x, n/2, n)
				out := make([]float32, (n-1)*ld+rows)
				MatMulQBF16(nil, q, out, ld, w, x, &rx, n, cols)
				what := fmt.Sprintf("%v %dx%d n=%d", q, rows, cols, n)
				checkQWithin(t, what, out, n, ld, q, w, x, extra)
				band := make([]float32, len(out))
				rb := q.RowBytes(cols)
				MatMulQBF16(nil, q, band, ld, w[:5*rb], x, &rx, n, cols)
				MatMulQBF16(nil, q, band[5:], ld, w[5*rb:], x, &rx, n, cols)
				for i := range out {
					if out[i] != band[i] {
						t.Fatalf("%s: out[%d] = %v in bands, %v whole", what, i, band[i], out[i])
					}
				}
			}
		}
	})
}

// TestQuantToleranceCatchesWrongScale checks the test itself: the same
// product with one sub-block's scale bumped must fail the tolerance.
func TestQuantToleranceCatchesWrongScale(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, q := range []Quant{Q4K, Q6K, Q8_0} {
		cols := 1536
		w := randBlocks(r, q, 1, cols)
		x := randF32(r, cols, 0)
		out := make([]float32, 1)
		bad := append([]byte(nil), w...)
		switch q {
		case Q4K:
			bad[4] ^= 0x20 // sub-block 0's scale ±32
		case Q6K:
			bad[192] ^= 0x20 // the first 16 weights' scale ±32
		case Q8_0:
			bad[1] ^= 0x04 // the first block's d ×2 or ÷2
		}
		MatVecQ(q, out, bad, x)
		wr, mag := oracleRow(q, w, cols)
		var want, abs float64
		for c := range cols {
			want += wr[c] * float64(x[c])
			abs += mag[c] * math.Abs(float64(x[c]))
		}
		if d := math.Abs(float64(out[0]) - want); d <= sumTol(cols)*abs {
			t.Errorf("%v: a changed block is within tolerance (%g ≤ %g)", q, d, sumTol(cols)*abs)
		}
	}
}
