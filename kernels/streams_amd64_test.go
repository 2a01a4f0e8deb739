//go:build amd64 && !purego

package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// oneStreamQ8 calls a level's one-stream row kernel one row at a time.
func oneStreamQ8(vnni bool, q Quant, out []float32, w []byte, a *QuantizedX) {
	nb, rb := a.cols/q.BlockLen(), q.RowBytes(a.cols)
	for r := range out {
		o, wr := &out[r], &w[r*rb]
		switch {
		case vnni && q == Q8_0:
			dotRowsQ8_0VNNI(o, 1, wr, &a.q[0], &a.de[0], &a.n128[0], nb)
		case vnni && q == Q4K:
			dotRowsQ4KVNNI(o, 1, wr, &a.q[0], &a.dc[0], &a.s[0], nb)
		case vnni && q == Q5K:
			dotRowsQ5KVNNI(o, 1, wr, &a.q[0], &a.dc[0], &a.s[0], nb)
		case vnni && q == Q6K:
			dotRowsQ6KVNNI(o, 1, wr, &a.q[0], &a.dc[0], &a.n32[0], nb)
		case q == Q8_0:
			dotRowsQ8_0AVX2(o, 1, wr, &a.q[0], &a.de[0], &a.n128[0], nb)
		case q == Q4K:
			dotRowsQ4KAVX2(o, 1, wr, &a.q[0], &a.dc[0], &a.s[0], nb)
		case q == Q5K:
			dotRowsQ5KAVX2(o, 1, wr, &a.q[0], &a.dc[0], &a.s[0], nb)
		case q == Q6K:
			dotRowsQ6KAVX2(o, 1, wr, &a.q[0], &a.dc[0], &a.n32[0], nb)
		}
	}
}

// TestMatVecQ8StreamsMatchOneStream: the drivers, which read several
// rows at once as streams far apart and the rows left over as one, give
// every row the bits of the one-stream kernel of their level, for row
// counts that leave 0…3 rows over and block counts that leave the
// multi-block steps' tails.
func TestMatVecQ8StreamsMatchOneStream(t *testing.T) {
	levels := []struct {
		name   string
		ok     bool
		vnni   bool
		driver func(Quant, []float32, []byte, *QuantizedX)
	}{
		{"vnni", hasVNNI, true, matVecQ8VNNI},
		{"avx2", hasAVX2 && hasF16C, false, matVecQ8AVX2},
	}
	rowCounts := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 37}
	for _, l := range levels {
		t.Run(l.name, func(t *testing.T) {
			if !l.ok {
				t.Skipf("CPU lacks %s", l.name)
			}
			r := rand.New(rand.NewPCG(29, 30))
			var a QuantizedX
			for _, q := range []Quant{Q8_0, Q4K, Q5K, Q6K} {
				colsList := []int{256, 512, 768, 1280}
				if q == Q8_0 {
					colsList = []int{32, 64, 96, 128, 160, 224}
				}
				for _, cols := range colsList {
					for _, rows := range rowCounts {
						what := fmt.Sprintf("%v %dx%d", q, rows, cols)
						w := randBlocks(r, q, rows, cols)
						a.Quantize(actRow(r, cols, 0))
						got, want := make([]float32, rows), make([]float32, rows)
						l.driver(q, got, w, &a)
						oneStreamQ8(l.vnni, q, want, w, &a)
						for i := range got {
							if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
								t.Fatalf("%s row %d: %v, one-stream kernel %v", what, i, got[i], want[i])
							}
						}
					}
				}
			}
		})
	}
}
