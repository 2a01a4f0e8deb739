package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkMatMulQBandsVsPanels: MatMulQ (the level's bands from
// nBcastF32 tokens, where x outgrows L2 at AVX-512) against the qPanel
// path (matMulQPanels: 32 rows widened at a time, each multiplied by all
// of x) and, at a level with bf16 products, MatMulQBF16 (the qPanel rows
// rounded to bf16, multiplied by x rounded to bf16), at 17, 64 and 512
// tokens on Qwen2.5-1.5B's 8960 × 1536 in Q4_K and Q8_0: GFLOP/s.
func BenchmarkMatMulQBandsVsPanels(b *testing.B) {
	const rows, cols = 8960, 1536
	r := rand.New(rand.NewPCG(8, 8))
	for _, q := range []Quant{Q4K, Q8_0} {
		w := randBlocks(r, q, rows, cols)
		for _, n := range []int{17, 64, 512} {
			x, out := randF32(r, n*cols, 0), make([]float32, n*rows)
			for _, path := range []string{"bands", "panels", "bf16x"} {
				b.Run(fmt.Sprintf("%v/n=%d/%s", q, n, path), func(b *testing.B) {
					benchLevels(b, func(b *testing.B) {
						var rx RoundedX
						if path == "bf16x" {
							if !rx.Prepare(n, cols) {
								b.Skip("no bf16 products")
							}
							rx.Round(x, 0, n)
						}
						clock := threadClock()
						for b.Loop() {
							if path == "bands" {
								MatMulQ(nil, q, out, rows, w, x, n, cols)
							} else if path == "bf16x" {
								MatMulQBF16(nil, q, out, rows, w, x, &rx, n, cols)
							} else {
								matMulQPanels(nil, q, out, rows, w, x, n, cols)
							}
						}
						reportFlops(b, 2*float64(n*rows*cols), clock().Seconds())
					})
				})
			}
		}
	}
}

// BenchmarkMatMulQ8RowsVsFP32: the integer prefill tiles (MatMulQ8Rows,
// the activations rounded once before the timing, as the engine rounds
// them once for all workers) against the fp32 products of the same
// weights (MatMulQ), at 17, 64 and 512 tokens on Qwen2.5-1.5B's 8960 ×
// 1536 (gate, up) and 1536 × 8960 (down) in Q4_K, Q5_K, Q6_K and Q8_0 (a
// level without the format's tile skips int8): GFLOP/s of
// the product they both compute.
func BenchmarkMatMulQ8RowsVsFP32(b *testing.B) {
	r := rand.New(rand.NewPCG(8, 9))
	for _, shape := range [][2]int{{8960, 1536}, {1536, 8960}} {
		rows, cols := shape[0], shape[1]
		for _, q := range []Quant{Q4K, Q5K, Q6K, Q8_0} {
			w := randBlocks(r, q, rows, cols)
			for _, n := range []int{17, 64, 512} {
				x, out := randF32(r, n*cols, 0), make([]float32, n*rows)
				for _, path := range []string{"int8", "fp32"} {
					b.Run(fmt.Sprintf("%v/%dx%d/n=%d/%s", q, rows, cols, n, path), func(b *testing.B) {
						benchLevels(b, func(b *testing.B) {
							if path == "int8" && !Q8Tiles(q) {
								b.Skip("no integer tile for this format here")
							}
							var a QuantizedRows
							a.Prepare(n, cols)
							a.Quantize(x, 0, n)
							clock := threadClock()
							for b.Loop() {
								if path == "int8" {
									MatMulQ8Rows(nil, q, out, rows, w, &a)
								} else {
									MatMulQ(nil, q, out, rows, w, x, n, cols)
								}
							}
							reportFlops(b, 2*float64(n*rows*cols), clock().Seconds())
						})
					})
				}
			}
		}
	}
}
