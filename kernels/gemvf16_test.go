package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

func randF16(r *rand.Rand, n, off int) []F16 {
	s := make([]F16, n+off)[off:]
	for i := range s {
		s[i] = F16(F32ToF16(float32(r.NormFloat64())))
	}
	return s
}

func f64F16(x []F16) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(F16ToF32(uint16(v))) // F16ToF32 is checked against its definition in f16_test.go
	}
	return y
}

// TestWidenF16Exhaustive widens every binary16 value, at every level and
// at offsets that move it through the SIMD loop and the Go tail: each
// must come out as F16ToF32's float32, bit for bit (NaNs as NaNs).
func TestWidenF16Exhaustive(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		for _, off := range []int{0, 1, 7} {
			src := make([]F16, 1<<16+off)[off:]
			for i := range src {
				src[i] = F16(i)
			}
			dst, check := guarded(t, len(src), off)
			WidenF16(dst, src)
			check()
			for i, got := range dst {
				want := F16ToF32(uint16(i))
				if want != want {
					if got == got {
						t.Fatalf("%#04x: %v, want a NaN", i, got)
					}
					continue
				}
				if math.Float32bits(got) != math.Float32bits(want) {
					t.Fatalf("%#04x: %v, want %v", i, got, want)
				}
			}
		}
	})
}

// TestMatVecF16 checks every row against the float64 product of the
// widened weights, over the widths where the AVX2 driver changes path
// (whole steps of 32 columns, the column tail in Go) and row counts that
// leave 0, 1 and 2 rows after the three bands.
func TestMatVecF16(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(61, 62))
		for _, cols := range append(sizes, 32, 48, 96, 4097) {
			for _, rows := range gemvRows {
				for _, off := range offsets {
					w := randF16(r, rows*cols, off)
					x := randF32(r, cols, 3-off)
					out, check := guarded(t, rows, off)
					MatVecF16(out, w, x)
					check()
					checkMatVec(t, out, f64F16(w), f64(x), off)
				}
			}
		}
	})
}

// TestMatVecF16RowsAlone: a row's sum is the same bits whichever rows it
// is computed with (a worker's band, the bands' streams, the rows left
// over), so the output does not depend on the number of threads.
func TestMatVecF16RowsAlone(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(63, 64))
		const rows, cols = 14, 1536 + 40
		w, x := randF16(r, rows*cols, 0), randF32(r, cols, 0)
		all := make([]float32, rows)
		MatVecF16(all, w, x)
		for lo := range rows {
			for hi := lo + 1; hi <= rows; hi++ {
				part := make([]float32, hi-lo)
				MatVecF16(part, w[lo*cols:hi*cols], x)
				for i, v := range part {
					if math.Float32bits(v) != math.Float32bits(all[lo+i]) {
						t.Fatalf("rows %d…%d: row %d = %v, alone with all rows %v", lo, hi-1, lo+i, v, all[lo+i])
					}
				}
			}
		}
	})
}

// TestMatMulF16 checks prefill on f16 weights against the float64
// oracle, and against MatMulF32 on the same weights widened: the product
// it is defined to be, bit for bit.
func TestMatMulF16(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		testMatMul(t, "f16", gemmShapes(), sumTol,
			func(r *rand.Rand, n, off int) ([]float64, func(out []float32, ldOut int, x []float32, sh gemmShape)) {
				w := randF16(r, n, off)
				return f64F16(w), func(out []float32, ldOut int, x []float32, sh gemmShape) {
					MatMulF16(nil, out, ldOut, w, x, sh.n, sh.cols)
					wf := make([]float32, len(w))
					WidenF16(wf, w)
					ref := make([]float32, len(out))
					rows := len(w) / sh.cols
					for p := 0; p < rows; p += qPanel {
						hi := min(rows, p+qPanel)
						MatMulF32(ref[p:], ldOut, wf[p*sh.cols:hi*sh.cols], x, sh.n, sh.cols)
					}
					for tk := range sh.n {
						for j := range rows {
							if a, b := out[tk*ldOut+j], ref[tk*ldOut+j]; math.Float32bits(a) != math.Float32bits(b) {
								t.Fatalf("%v: out[%d][%d] = %v, MatMulF32 on the widened rows %v", sh, tk, j, a, b)
							}
						}
					}
				}
			})
	})
}
