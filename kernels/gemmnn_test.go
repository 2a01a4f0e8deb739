package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestMatMulNN compares every level with the float64 oracle
// Σ_c x[t][c]·b[c][j] over token counts around the 12-token tile, widths
// around the 32-output panel and the attention shapes (k = d = 128, and
// k = nk ≫ d), with odd strides whose gap cells are guards.
func TestMatMulNN(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(31, 32))
		i := 0
		for _, n := range []int{1, 5, 11, 12, 13, 24, 37} {
			for _, k := range []int{0, 1, 7, 16, 128, 300} {
				for _, m := range []int{1, 31, 32, 33, 100, 128} {
					off := offsets[i%len(offsets)]
					i++
					testMatMulNN(t, r, n, k, m, off)
				}
			}
		}
	})
}

// testMatMulNN runs one MatMulNN with odd strides past the rows (ldx ≥
// k+2, ldb ≥ m+4, ldOut ≥ m+1; out's gap cells and its ends hold guard
// NaNs) and checks it.
func testMatMulNN(t *testing.T, r *rand.Rand, n, k, m, off int) {
	t.Helper()
	ldx, ldb, ldOut := (k+2)|1, (m+4)|1, (m+1)|1
	x := randF32(r, (n-1)*ldx+k, off)
	b := randF32(r, max(0, (k-1)*ldb+m), 3-off)
	out, check := guarded(t, (n-1)*ldOut+m, off)
	MatMulNN(out, ldOut, x, ldx, b, ldb, n, k, m)
	check()
	name := fmt.Sprintf("NN n%d k%d m%d +%d", n, k, m, off)
	for tk := range n - 1 {
		for j := m; j < ldOut; j++ {
			if v := out[tk*ldOut+j]; v == v {
				t.Fatalf("%s: gap cell out[%d,%d] overwritten: %v", name, tk, j, v)
			}
		}
	}
	for tk := range n {
		for j := range m {
			var want, abs float64
			for c := range k {
				p := float64(x[tk*ldx+c]) * float64(b[c*ldb+j])
				want += p
				abs += math.Abs(p)
			}
			within(t, fmt.Sprintf("%s out[%d,%d]", name, tk, j), out[tk*ldOut+j], want, abs, sumTol(k))
		}
	}
}

// TestMatMulNNZeroK: k = 0 zeroes the outputs and nothing else, with
// empty x and b.
func TestMatMulNNZeroK(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		out, check := guarded(t, 2*9+7, 1)
		for i := range out {
			out[i] = 7
		}
		MatMulNN(out, 9, nil, 0, nil, 0, 3, 0, 7)
		check()
		for i, v := range out {
			if want := float32(7); i%9 < 7 && v != 0 || i%9 >= 7 && v != want {
				t.Fatalf("k = 0: out[%d,%d] = %v", i/9, i%9, v)
			}
		}
	})
}

func TestMatMulNNPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"short out": func() { MatMulNN(make([]float32, 7), 4, make([]float32, 4), 2, make([]float32, 8), 4, 2, 2, 4) },
		"short x":   func() { MatMulNN(make([]float32, 8), 4, make([]float32, 3), 2, make([]float32, 8), 4, 2, 2, 4) },
		"short b":   func() { MatMulNN(make([]float32, 8), 4, make([]float32, 4), 2, make([]float32, 7), 4, 2, 2, 4) },
		"ldOut < m": func() { MatMulNN(make([]float32, 8), 3, make([]float32, 4), 2, make([]float32, 8), 4, 2, 2, 4) },
		"k < 0":     func() { MatMulNN(make([]float32, 8), 4, nil, 0, nil, 0, 2, -1, 4) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("MatMulNN accepted %s", name)
				}
			}()
			f()
		}()
	}
}
