package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkMatMulBF16Small is the prefill product of a short prompt (the
// 17-token sentence of the article “The two times of an answer”) with the
// weights streamed from DRAM, as in
// a real prefill: enough copies of W rotate that none stays in the L3.
// At this n each weight byte serves only 17 tokens, so the kernel is as
// much bound by the weight stream as by the FMA units.
func BenchmarkMatMulBF16Small(b *testing.B) {
	for _, n := range []int{17, 64, 512} {
		for _, sh := range qwenShapes {
			rows, cols := sh[0], sh[1]
			r := rand.New(rand.NewPCG(2, 2))
			copies := max(2, l3Bytes/(2*rows*cols))
			ws := make([][]BF16, copies)
			for i := range ws {
				ws[i] = randBF16(r, rows*cols, 0)
			}
			x, out := randF32(r, n*cols, 0), make([]float32, n*rows)
			wsp := NewWorkspace()
			b.Run(fmt.Sprintf("n%d_%dx%d", n, rows, cols), func(b *testing.B) {
				benchLevels(b, func(b *testing.B) {
					clock := threadClock()
					for i := 0; b.Loop(); i++ {
						MatMulBF16Into(wsp, out, rows, ws[i%copies], x, n, cols)
					}
					secs := clock().Seconds()
					reportFlops(b, 2*float64(n*rows*cols), secs)
					b.ReportMetric(float64(2*rows*cols)*float64(b.N)/secs/1e9, "GB/s")
				})
			})
		}
	}
}
