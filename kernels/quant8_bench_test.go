package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkMatVecQuant: decode's product for Qwen2.5-1.5B's shapes on
// quantised weights, streamed from DRAM (copies beyond the last-level
// cache), at every level: "int8" is MatVecQ8 (with the activation row
// quantised once per call, as the engine does per token), "fp32" is
// MatVecQ (weights widened, Exact's path). GB/s counts the weight bytes,
// per second of this thread's CPU time. The 256-row shape ("hot") reads
// one copy again and again from the caches: the kernels' compute ceiling,
// to set the DRAM figures against.
//
//	go test -run '^$' -bench MatVecQuant -benchtime 200x ./kernels/
func BenchmarkMatVecQuant(b *testing.B) {
	for _, q := range []Quant{Q8_0, Q4K, Q5K, Q6K} {
		for _, sh := range [][2]int{{256, 1536}, {1536, 1536}, {8960, 1536}, {1536, 8960}} {
			rows, cols := sh[0], sh[1]
			r := rand.New(rand.NewPCG(3, 3))
			bytes := rows * q.RowBytes(cols)
			copies := max(1, l3Bytes/bytes)
			name := fmt.Sprintf("%dx%d", rows, cols)
			if rows == 256 {
				copies, name = 1, name+"-hot"
			}
			ws := make([][]byte, copies)
			for i := range ws {
				ws[i] = randBlocks(r, q, rows, cols)
			}
			x, out := randF32(r, cols, 0), make([]float32, rows)
			for _, arith := range []string{"int8", "fp32"} {
				b.Run(fmt.Sprintf("%v/%s/%s", q, name, arith), func(b *testing.B) {
					benchLevels(b, func(b *testing.B) {
						var a QuantizedX
						clock := threadClock()
						for i := 0; b.Loop(); i++ {
							if arith == "int8" {
								a.Quantize(x)
								MatVecQ8(q, out, ws[i%copies], &a)
							} else {
								MatVecQ(q, out, ws[i%copies], x)
							}
						}
						b.ReportMetric(float64(bytes)*float64(b.N)/clock().Seconds()/1e9, "GB/s")
					})
				})
			}
		}
	}
}

// BenchmarkQuantizeX: rounding one activation row of 8,960 (the input of
// ffn_down) to 8 bits, the serial step before each integer product, per
// second of this thread's CPU time.
func BenchmarkQuantizeX(b *testing.B) {
	const cols = 8960
	x := randF32(rand.New(rand.NewPCG(4, 4)), cols, 0)
	benchLevels(b, func(b *testing.B) {
		var a QuantizedX
		clock := threadClock()
		for b.Loop() {
			a.Quantize(x)
		}
		b.ReportMetric(float64(clock().Nanoseconds())/float64(b.N)/cols, "ns/value")
	})
}
