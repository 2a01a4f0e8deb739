package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestQuantizedRows: each row is rounded bit for bit as QuantizedX rounds
// it alone, with its block sums beside it.
func TestQuantizedRows(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(71, 3))
		const n, cols = 5, 1536
		x := make([]float32, 0, n*cols)
		for range n {
			x = append(x, actRow(r, cols, 0)...)
		}
		var a QuantizedRows
		a.Prepare(n, cols)
		a.Quantize(x, 0, 2)
		a.Quantize(x, 2, n)
		var one QuantizedX
		for i := range n {
			one.Quantize(x[i*cols : (i+1)*cols])
			for c := range cols {
				if a.q[i*cols+c] != one.q[c] {
					t.Fatalf("row %d q[%d] = %d, QuantizedX %d", i, c, a.q[i*cols+c], one.q[c])
				}
			}
			for b := range cols / 32 {
				ds := a.ds[i*cols/8+4*b:]
				var s [2]int32
				for c := range 32 {
					s[c/16] += int32(one.q[32*b+c])
				}
				if ds[0] != one.dc[b] || ds[1] != one.s[b] || int32(math.Float32bits(ds[2])) != -32*s[0] || int32(math.Float32bits(ds[3])) != -32*s[1] {
					t.Fatalf("row %d block %d: ds %v, want dx %v Σx̂ %v −32·Σq %d %d", i, b, ds[:4], one.dc[b], one.s[b], -32*s[0], -32*s[1])
				}
			}
		}
	})
}

// TestMatMulQ8Rows checks the integer prefill tiles at every level, and
// the readable ones, against the float64 oracle of each token (checkQ8: on
// x̂ within fp32 summation, on x within the rounding's bound): row counts
// that end inside a tile of 8 and a chunk of 32, token counts that leave
// every tile width, every output untouched outside out's rows.
func TestMatMulQ8Rows(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		checkMatMulQ8Rows(t, func(q Quant, out []float32, ld int, w []byte, a *QuantizedRows) { MatMulQ8Rows(nil, q, out, ld, w, a) })
	})
	t.Run("readable", func(t *testing.T) {
		was := cur
		defer func() { cur = was }()
		cur = &kernelSet{quantizeX: quantizeXGeneric}
		checkMatMulQ8Rows(t, func(q Quant, out []float32, ld int, w []byte, a *QuantizedRows) { MatMulQ8Rows(nil, q, out, ld, w, a) })
	})
}

// checkMatMulQ8Rows runs TestMatMulQ8Rows' shapes through mul.
func checkMatMulQ8Rows(t *testing.T, mul func(q Quant, out []float32, ld int, w []byte, a *QuantizedRows)) {
	{
		r := rand.New(rand.NewPCG(72, 4))
		for _, q := range []Quant{Q4K, Q5K, Q6K, Q8_0} {
			for _, cols := range quantCols[q] {
				for _, sh := range [][2]int{{1, 1}, {8, 6}, {9, 7}, {37, 13}, {64, 2}, {5, 11}} {
					rows, n := sh[0], sh[1]
					w := randBlocks(r, q, rows, cols)
					x := make([]float32, 0, n*cols)
					for range n {
						x = append(x, actRow(r, cols, 0)...)
					}
					var a QuantizedRows
					a.Prepare(n, cols)
					a.Quantize(x, 0, n)
					ld := rows + 3
					out, check := guarded(t, (n-1)*ld+rows, 1)
					mul(q, out, ld, w, &a)
					check()
					for i := range n {
						checkQ8(t, fmt.Sprintf("%v %dx%d token %d of %d", q, rows, cols, i, n), out[i*ld:i*ld+rows], q, w, x[i*cols:(i+1)*cols])
					}
				}
			}
		}
	}
}

// TestInt8PeakLoop: the integer tiles' loop counts 64 operations a chain
// and round where the level has tiles, nothing where it has none; it logs
// its rate beside FMA's.
func TestInt8PeakLoop(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		if cur.q8Tiles == nil {
			if Int8PeakLoop(1000) != 0 || Int8PeakLoopName() != "" {
				t.Fatal("a level without tiles runs an integer loop")
			}
			return
		}
		if got := Int8PeakLoop(1000); got != 1000*12*64 {
			t.Fatalf("Int8PeakLoop(1000) = %d operations, want %d", got, 1000*12*64)
		}
		rate := func(loop func(int) int64) float64 {
			start := time.Now()
			ops := loop(1 << 20)
			return float64(ops) / time.Since(start).Seconds() / 1e9
		}
		t.Logf("%s %.0f GOP/s, fp32 FMA %.0f GFLOP/s", Int8PeakLoopName(), rate(Int8PeakLoop), rate(FP32PeakLoop))
	})
}
