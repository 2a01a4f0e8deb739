package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

var gemvRows = []int{1, 3, 4, 5, 9, 14}

// checkMatVec compares out[i] with the float64 oracle w64[i,:]·x64 for
// every row of a len(out) × len(x64) product.
func checkMatVec(t *testing.T, out []float32, w64, x64 []float64, off int) {
	t.Helper()
	rows, cols := len(out), len(x64)
	for i := range rows {
		want, abs := dot64(w64[i*cols:i*cols+cols], x64)
		within(t, fmt.Sprintf("%dx%d+%d out[%d]", rows, cols, off, i), out[i], want, abs, sumTol(cols))
	}
}

func TestMatVecBF16(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(1, 2))
		for _, cols := range sizes {
			for _, rows := range gemvRows {
				for _, off := range offsets {
					w := randBF16(r, rows*cols, off)
					x := randF32(r, cols, 3-off)
					out, check := guarded(t, rows, off)
					MatVecBF16(out, w, x)
					check()
					checkMatVec(t, out, f64BF16(w), f64(x), off)
				}
			}
		}
	})
}

// TestMatVecBF16Paths sweeps the widths where the SIMD drivers change
// path: whole lines and a last half line of the one-row pair kernel (32
// and 16 columns), the column tail in Go, and both sides of splitCols
// (16,384 columns on amd64),
// beyond which rows go four at a time.
func TestMatVecBF16Paths(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(5, 6))
		for _, cols := range []int{32, 48, 96, 128, 160, 4064, 4096, 4097, 4128, 16384, 16416, 18944} {
			for _, rows := range []int{1, 6} {
				for _, off := range offsets {
					w := randBF16(r, rows*cols, off)
					x := randF32(r, cols, 3-off)
					out, check := guarded(t, rows, off)
					MatVecBF16(out, w, x)
					check()
					checkMatVec(t, out, f64BF16(w), f64(x), off)
				}
			}
		}
	})
}

func TestMatVecF32(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(3, 4))
		for _, cols := range sizes {
			for _, rows := range gemvRows {
				for _, off := range offsets {
					w := randF32(r, rows*cols, off)
					x := randF32(r, cols, 3-off)
					out, check := guarded(t, rows, off)
					MatVecF32(out, w, x)
					check()
					checkMatVec(t, out, f64(w), f64(x), off)
				}
			}
		}
	})
}

// TestToleranceCatchesDroppedTerm checks the tests themselves: at the
// longest row the bound must be well below one average term (Σ|terms|/n),
// or a kernel that skipped a column would pass.
func TestToleranceCatchesDroppedTerm(t *testing.T) {
	const cols = 8960
	if tol, term := sumTol(cols), 1.0/cols; tol > term/2 {
		t.Fatalf("tolerance %.3g·Σ|terms| would miss a dropped average term (%.3g·Σ)", tol, term)
	}
}

func TestMatVecShortWeightsPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("MatVecBF16 accepted w shorter than len(out)·len(x)")
		}
	}()
	MatVecBF16(make([]float32, 3), make([]BF16, 5), make([]float32, 2))
}

// TestMatVecBandsAgree: as TestMatMulBandsAgree, for decode.
func TestMatVecBandsAgree(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(17, 18))
		const rows, cols = 23, 1040
		w, wf, x := randBF16(r, rows*cols, 0), randF32(r, rows*cols, 0), randF32(r, cols, 0)
		whole, whole32 := make([]float32, rows), make([]float32, rows)
		MatVecBF16(whole, w, x)
		MatVecF32(whole32, wf, x)
		for _, cut := range []int{1, 5, 7} {
			band, band32 := make([]float32, rows), make([]float32, rows)
			for lo := 0; lo < rows; lo += cut {
				hi := min(lo+cut, rows)
				MatVecBF16(band[lo:hi], w[lo*cols:hi*cols], x)
				MatVecF32(band32[lo:hi], wf[lo*cols:hi*cols], x)
			}
			for i := range band {
				if band[i] != whole[i] || band32[i] != whole32[i] {
					t.Fatalf("bands of %d: out[%d] bf16 %v vs %v, f32 %v vs %v", cut, i, band[i], whole[i], band32[i], whole32[i])
				}
			}
		}
	})
}

// BenchmarkMatVecBF16Head is BenchmarkMatVecBF16 for Qwen2.5's lm_head
// (151936 × 1536, 467 MB): one pass already streams from DRAM.
func BenchmarkMatVecBF16Head(b *testing.B) {
	const rows, cols = 151936, 1536
	r := rand.New(rand.NewPCG(1, 1))
	w, x, out := randBF16(r, rows*cols, 0), randF32(r, cols, 0), make([]float32, rows)
	benchLevels(b, func(b *testing.B) {
		clock := threadClock()
		for b.Loop() {
			MatVecBF16(out, w, x)
		}
		secs := clock().Seconds()
		b.ReportMetric(float64(2*rows*cols)*float64(b.N)/secs/1e9, "GB/s")
	})
}
