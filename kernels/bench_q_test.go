package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkMatMulQPrefill: a 512-token prefill through Qwen2.5-1.5B's
// 1536 × 1536 and 8960 × 1536 matrices in Q8_0, Q4_K and Q6_K (Q4_K_M's
// two formats), widened and multiplied in fp32 (MatMulQ): GFLOP/s and the
// share of the fp32 FMA peak.
func BenchmarkMatMulQPrefill(b *testing.B) {
	const n = 512
	for _, sh := range [][2]int{{1536, 1536}, {8960, 1536}} {
		rows, cols := sh[0], sh[1]
		r := rand.New(rand.NewPCG(7, 7))
		x, out := randF32(r, n*cols, 0), make([]float32, n*rows)
		for _, q := range []Quant{Q8_0, Q4K, Q6K} {
			w := randBlocks(r, q, rows, cols)
			b.Run(fmt.Sprintf("%v_%dx%d", q, rows, cols), func(b *testing.B) {
				benchLevels(b, func(b *testing.B) {
					clock := threadClock()
					for b.Loop() {
						MatMulQ(nil, q, out, rows, w, x, n, cols)
					}
					reportFlops(b, 2*float64(n*rows*cols), clock().Seconds())
				})
			})
		}
	}
}
