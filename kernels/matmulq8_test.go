package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestMatMulQ8 checks MatMulQ8 at every level against the float64 oracle
// of each token (checkQ8: on x̂ within fp32 summation, on x within the
// rounding's bound), and that each output is MatVecQ8's for its token bit
// for bit (the engine's prefill experts give decode's values): odd and
// even rows and tokens, every format.
func TestMatMulQ8(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(45, 2))
		for _, q := range []Quant{Q8_0, Q4K, Q6K} {
			for _, cols := range quantCols[q] {
				for _, sh := range [][2]int{{1, 2}, {2, 2}, {5, 3}, {9, 6}, {14, 1}} {
					rows, n := sh[0], sh[1]
					w := randBlocks(r, q, rows, cols)
					xs, as := make([][]float32, n), make([]*QuantizedX, n)
					for i := range n {
						xs[i], as[i] = actRow(r, cols, 0), new(QuantizedX)
						as[i].Quantize(xs[i])
					}
					ld := rows + 3
					out, check := guarded(t, (n-1)*ld+rows, 0)
					MatMulQ8(q, out, ld, w, as)
					check()
					ref := make([]float32, rows)
					for i := range n {
						MatVecQ8(q, ref, w, as[i])
						for r := range rows {
							if math.Float32bits(out[i*ld+r]) != math.Float32bits(ref[r]) {
								t.Fatalf("%v %dx%d token %d of %d: out[%d] = %v, MatVecQ8 %v", q, rows, cols, i, n, r, out[i*ld+r], ref[r])
							}
						}
						checkQ8(t, fmt.Sprintf("%v %dx%d token %d of %d", q, rows, cols, i, n), out[i*ld:i*ld+rows], q, w, xs[i])
					}
				}
			}
		}
	})
}
