package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// gemmShape is one MatMul case: n tokens, rows of W, cols, and the slack
// between output rows (ldOut = rows + gap, the gap cells are guards).
type gemmShape struct{ n, rows, cols, gap int }

func gemmShapes() []gemmShape {
	var s []gemmShape
	for _, cols := range sizes {
		for _, nr := range [][2]int{{1, 1}, {2, 9}, {3, 4}, {6, 4}, {7, 5}, {13, 9}, {5, 15}} {
			s = append(s, gemmShape{nr[0], nr[1], cols, 3})
		}
		// Enough tokens for the AVX-512 broadcast tiles (12 tokens × 32
		// rows; f32 from 48 tokens): one full panel, or one plus a
		// partial, and leftover tokens.
		for _, nr := range [][2]int{{24, 32}, {37, 45}, {53, 33}} {
			if cols <= 1536 {
				s = append(s, gemmShape{nr[0], nr[1], cols, 3})
			}
		}
	}
	// Prefill-like: full tiles, several column blocks, tails in both.
	return append(s, gemmShape{64, 64, 1536, 0}, gemmShape{20, 10, 1040, 2}, gemmShape{100, 75, 1040, 2})
}

// bf16RoundTol is the extra error of rounding x to bf16 before the product
// (AVX512BF16, NEONBF16): bf16 keeps 8 significant bits, so rounding to
// nearest moves each |x| by at most 2^-8 of itself (half a unit in the
// last place of 2^-7, relative to a value just above a power of two), and
// the sum by at most 2^-8·Σ|w·x|. (2^-9 held only on average: a product of
// two columns at NEONBF16, whose tiles round from two tokens on, moved by
// 2.2e-3 of Σ|w·x|.)
const bf16RoundTol = 1.0 / (1 << 8)

func TestMatMulBF16(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) { testMatMulBF16(t, l, gemmShapes()) })
}

func TestMatMulF32(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) { testMatMulF32(t, gemmShapes()) })
}

// testMatMulShapes runs the MatMulBF16 and MatMulF32 checks over shapes at
// the active level.
func testMatMulShapes(t *testing.T, shapes []gemmShape) {
	t.Helper()
	testMatMulBF16(t, Active(), shapes)
	testMatMulF32(t, shapes)
}

func testMatMulBF16(t *testing.T, l Level, shapes []gemmShape) {
	t.Helper()
	for _, exactX := range []bool{true, false} {
		tol := func(cols int) float64 { return sumTol(cols) }
		if !exactX && RoundsActivations(l) {
			tol = func(cols int) float64 { return sumTol(cols) + bf16RoundTol }
		}
		testMatMul(t, fmt.Sprintf("bf16x=%v", exactX), shapes, tol,
			func(r *rand.Rand, n, off int) ([]float64, func(out []float32, ldOut int, x []float32, sh gemmShape)) {
				w := randBF16(r, n, off)
				return f64BF16(w), func(out []float32, ldOut int, x []float32, sh gemmShape) {
					if exactX {
						bf16Exact(x)
					}
					MatMulBF16(out, ldOut, w, x, sh.n, sh.cols)
				}
			})
	}
}

// TestMatMulBF16Exact: the exact-input product keeps the fp32 bound at
// every level, AVX512BF16 included, on activations that bf16 cannot hold.
func TestMatMulBF16Exact(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		testMatMul(t, "exact", gemmShapes(), sumTol,
			func(r *rand.Rand, n, off int) ([]float64, func(out []float32, ldOut int, x []float32, sh gemmShape)) {
				w := randBF16(r, n, off)
				return f64BF16(w), func(out []float32, ldOut int, x []float32, sh gemmShape) {
					MatMulBF16Exact(out, ldOut, w, x, sh.n, sh.cols)
				}
			})
	})
}

func testMatMulF32(t *testing.T, shapes []gemmShape) {
	t.Helper()
	testMatMul(t, "f32", shapes, sumTol,
		func(r *rand.Rand, n, off int) ([]float64, func(out []float32, ldOut int, x []float32, sh gemmShape)) {
			w := randF32(r, n, off)
			return f64(w), func(out []float32, ldOut int, x []float32, sh gemmShape) {
				MatMulF32(out, ldOut, w, x, sh.n, sh.cols)
			}
		})
}

// testMatMul runs every shape and offset: mk makes the weights (returning
// them in float64 and a call of the kernel under test).
func testMatMul(t *testing.T, tag string, shapes []gemmShape, tol func(cols int) float64,
	mk func(r *rand.Rand, n, off int) ([]float64, func(out []float32, ldOut int, x []float32, sh gemmShape))) {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 8))
	for _, sh := range shapes {
		for _, off := range offsets {
			if sh.cols == 0 {
				continue // rows = len(w)/cols is undefined; see TestMatMulZeroCols
			}
			name := fmt.Sprintf("%s %d×(%dx%d)+%d", tag, sh.n, sh.rows, sh.cols, off)
			w64, run := mk(r, sh.rows*sh.cols, off)
			x := randF32(r, sh.n*sh.cols, 3-off)
			ldOut := sh.rows + sh.gap
			out, check := guarded(t, (sh.n-1)*ldOut+sh.rows, off)
			run(out, ldOut, x, sh)
			check()
			gaps(t, name, out, sh, ldOut)
			x64 := f64(x)
			for tk := range sh.n {
				for i := range sh.rows {
					want, abs := dot64(w64[i*sh.cols:(i+1)*sh.cols], x64[tk*sh.cols:(tk+1)*sh.cols])
					within(t, fmt.Sprintf("%s out[%d,%d]", name, tk, i), out[tk*ldOut+i], want, abs, tol(sh.cols))
				}
			}
		}
	}
}

// gaps checks the guard cells between output rows (r ≥ rows) are untouched.
func gaps(t *testing.T, name string, out []float32, sh gemmShape, ldOut int) {
	t.Helper()
	for tk := range sh.n - 1 {
		for i := sh.rows; i < ldOut; i++ {
			if v := out[tk*ldOut+i]; v == v {
				t.Fatalf("%s: gap cell out[%d,%d] overwritten: %v", name, tk, i, v)
			}
		}
	}
}

func TestMatMulZeroCols(t *testing.T) {
	out, check := guarded(t, 4, 1)
	for i := range out {
		out[i] = 7
	}
	MatMulBF16(out, 4, nil, nil, 3, 0)
	MatMulF32(out, 4, nil, nil, 3, 0)
	check()
	for _, v := range out {
		if v != 7 {
			t.Fatalf("cols = 0 wrote out: %v", out)
		}
	}
}

func TestMatMulShortOutPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("MatMulF32 accepted out shorter than (n-1)·ldOut+rows")
		}
	}()
	MatMulF32(make([]float32, 7), 4, make([]float32, 8), make([]float32, 4), 2, 2)
}

// TestMatMulBF16IntoReusesWorkspace runs two shapes through one workspace,
// the larger second, so a stale buffer size would show.
func TestMatMulBF16IntoReusesWorkspace(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(9, 10))
		ws := NewWorkspace()
		for i, sh := range []gemmShape{{7, 8, 64, 0}, {13, 12, 1536, 0}, {5, 9, 96, 0}} {
			if i == 2 {
				ws = nil // borrows from the pool
			}
			w, x := randBF16(r, sh.rows*sh.cols, 0), randF32(r, sh.n*sh.cols, 0)
			bf16Exact(x)
			out := make([]float32, sh.n*sh.rows)
			MatMulBF16Into(ws, out, sh.rows, w, x, sh.n, sh.cols)
			w64, x64 := f64BF16(w), f64(x)
			for tk := range sh.n {
				for i := range sh.rows {
					want, abs := dot64(w64[i*sh.cols:(i+1)*sh.cols], x64[tk*sh.cols:(tk+1)*sh.cols])
					within(t, fmt.Sprintf("out[%d,%d]", tk, i), out[tk*sh.rows+i], want, abs, sumTol(sh.cols))
				}
			}
		}
	})
}

// TestMatMulBandsAgree splits the rows into worker bands at awkward
// boundaries: every output must be bit-identical to the one-call result,
// since the engine promises results independent of the thread count.
func TestMatMulBandsAgree(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(15, 16))
		for _, sh := range []gemmShape{{13, 23, 1040, 0}, {3, 23, 1536, 0}, {64, 10, 96, 0}, {37, 75, 1040, 0}} {
			w, wf := randBF16(r, sh.rows*sh.cols, 0), randF32(r, sh.rows*sh.cols, 0)
			x := randF32(r, sh.n*sh.cols, 0)
			whole, whole32 := make([]float32, sh.n*sh.rows), make([]float32, sh.n*sh.rows)
			MatMulBF16(whole, sh.rows, w, x, sh.n, sh.cols)
			MatMulF32(whole32, sh.rows, wf, x, sh.n, sh.cols)
			for _, cut := range []int{1, 5, 7, 40} {
				band, band32 := make([]float32, sh.n*sh.rows), make([]float32, sh.n*sh.rows)
				for lo := 0; lo < sh.rows; lo += cut {
					hi := min(lo+cut, sh.rows)
					MatMulBF16(band[lo:], sh.rows, w[lo*sh.cols:hi*sh.cols], x, sh.n, sh.cols)
					MatMulF32(band32[lo:], sh.rows, wf[lo*sh.cols:hi*sh.cols], x, sh.n, sh.cols)
				}
				for i := range band {
					if band[i] != whole[i] || band32[i] != whole32[i] {
						t.Fatalf("%v bands of %d: out[%d] bf16 %v vs %v, f32 %v vs %v",
							sh, cut, i, band[i], whole[i], band32[i], whole32[i])
					}
				}
			}
		}
	})
}

// TestMatMulBF16XMatchesMatMulBF16: a product whose bands of rows share one
// rounding of x (RoundedX, rounded in two pieces as two workers would)
// gives MatMulBF16's outputs bit for bit at every level: shapes with and
// without column tails, fewer tokens than a tile, bands not on a panel.
func TestMatMulBF16XMatchesMatMulBF16(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(5, 9))
		for _, s := range []gemmShape{{1, 40, 64, 0}, {2, 40, 64, 0}, {7, 72, 96, 3}, {17, 96, 200, 1}, {40, 64, 2048 + 64, 0}} {
			w, x := randBF16(r, s.rows*s.cols, 0), randF32(r, s.n*s.cols, 0)
			ld := s.rows + s.gap
			want, got := make([]float32, s.n*ld), make([]float32, s.n*ld)
			var rx RoundedX
			used := rx.Prepare(s.n, s.cols)
			if used != (RoundsActivations(l) && s.n > 1) {
				t.Errorf("%v: Prepare says %v at %v", s, used, l)
			}
			rx.Round(x, 0, s.n/2)
			rx.Round(x, s.n/2, s.n)
			for _, band := range [][2]int{{0, 24}, {24, s.rows}} {
				lo, hi := band[0], band[1]
				MatMulBF16(want[lo:], ld, w[lo*s.cols:hi*s.cols], x, s.n, s.cols)
				MatMulBF16X(got[lo:], ld, w[lo*s.cols:hi*s.cols], x, &rx, s.n, s.cols)
			}
			for i := range want {
				if want[i] != got[i] {
					t.Fatalf("%v: out[%d] = %v, MatMulBF16 gives %v", s, i, got[i], want[i])
				}
			}
		}
	})
}
