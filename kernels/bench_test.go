package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
)

// Benchmarks pair every level with its generic twin:
//
//	go test -run '^$' -bench . -benchtime 20x ./kernels/
//
// GB/s counts weight bytes read (decode is bound by them); GFLOP/s counts
// 2·n·rows·cols. Both are per second of the benchmark thread's CPU time
// (threadClock), not wall time: the shared box runs several jobs per core.

func benchLevels(b *testing.B, f func(b *testing.B)) {
	prev := Active()
	defer SetLevel(prev)
	for _, l := range Levels() {
		b.Run(l.String(), func(b *testing.B) {
			if !Supported(l) {
				b.Skipf("CPU lacks %v", l)
			}
			SetLevel(l)
			f(b)
		})
	}
}

// Qwen2.5-1.5B projection shapes, rows × cols.
var qwenShapes = [][2]int{{1536, 1536}, {256, 1536}, {8960, 1536}, {1536, 8960}}

// l3Bytes is more than the last-level cache: gemv benchmarks rotate through
// enough weight copies that every call streams from DRAM, as in decode.
const l3Bytes = 96 << 20

func BenchmarkMatVecBF16(b *testing.B) {
	for _, sh := range qwenShapes {
		rows, cols := sh[0], sh[1]
		r := rand.New(rand.NewPCG(1, 1))
		copies := max(1, l3Bytes/(2*rows*cols))
		ws := make([][]BF16, copies)
		for i := range ws {
			ws[i] = randBF16(r, rows*cols, 0)
		}
		x, out := randF32(r, cols, 0), make([]float32, rows)
		b.Run(fmt.Sprintf("%dx%d", rows, cols), func(b *testing.B) {
			benchLevels(b, func(b *testing.B) {
				clock := threadClock()
				for i := 0; b.Loop(); i++ {
					MatVecBF16(out, ws[i%copies], x)
				}
				secs := clock().Seconds()
				b.ReportMetric(float64(2*rows*cols)*float64(b.N)/secs/1e9, "GB/s")
			})
		})
	}
}

func BenchmarkMatVecF32(b *testing.B) {
	rows, cols := 8960, 1536
	r := rand.New(rand.NewPCG(1, 1))
	copies := max(1, l3Bytes/(4*rows*cols))
	ws := make([][]float32, copies)
	for i := range ws {
		ws[i] = randF32(r, rows*cols, 0)
	}
	x, out := randF32(r, cols, 0), make([]float32, rows)
	benchLevels(b, func(b *testing.B) {
		clock := threadClock()
		for i := 0; b.Loop(); i++ {
			MatVecF32(out, ws[i%copies], x)
		}
		secs := clock().Seconds()
		b.ReportMetric(float64(4*rows*cols)*float64(b.N)/secs/1e9, "GB/s")
	})
}

// BenchmarkMatMulBF16 reports GFLOP/s and the share of the fp32 FMA peak
// of the best exact level (fmaPeak). n = 512 is a full prefill chunk; the
// generic level takes seconds per call there, so filter it out
// (-bench 'MatMulBF16/.*/avx512$').
func BenchmarkMatMulBF16(b *testing.B) {
	for _, n := range []int{64, 128, 512} {
		for _, sh := range qwenShapes {
			rows, cols := sh[0], sh[1]
			r := rand.New(rand.NewPCG(2, 2))
			w, x, out := randBF16(r, rows*cols, 0), randF32(r, n*cols, 0), make([]float32, n*rows)
			ws := NewWorkspace()
			b.Run(fmt.Sprintf("n%d_%dx%d", n, rows, cols), func(b *testing.B) {
				benchLevels(b, func(b *testing.B) {
					clock := threadClock()
					for b.Loop() {
						MatMulBF16Into(ws, out, rows, w, x, n, cols)
					}
					reportFlops(b, 2*float64(n*rows*cols), clock().Seconds())
				})
			})
		}
	}
}

// reportFlops reports GFLOP/s for flops per call, and % of fmaPeak.
func reportFlops(b *testing.B, flops, secs float64) {
	gf := flops * float64(b.N) / secs / 1e9
	b.ReportMetric(gf, "GFLOP/s")
	b.ReportMetric(100*gf/fmaPeak(), "%peak")
}

// fmaPeak measures once the fp32 FMA peak (GFLOP/s) of BestExact(), the
// fastest level whose products are all fp32 (the %peak of fp32 kernels).
var fmaPeak = sync.OnceValue(func() float64 {
	prev := Active()
	defer SetLevel(prev)
	SetLevel(BestExact())
	FMAPeakLoop(100000) // warm up the vector units
	clock := threadClock()
	flops := FMAPeakLoop(10_000_000)
	return float64(flops) / clock().Seconds() / 1e9
})

// BenchmarkMatMulNN runs the two attention products of one head for a
// 24-query chunk over 3,139 cached keys (d = 128): QKᵀ (k = d, m = nk)
// and PV (k = nk, m = d).
func BenchmarkMatMulNN(b *testing.B) {
	for _, sh := range [][3]int{{24, 128, 3139}, {24, 3139, 128}} {
		n, k, m := sh[0], sh[1], sh[2]
		r := rand.New(rand.NewPCG(8, 8))
		x, bm, out := randF32(r, n*k, 0), randF32(r, k*m, 0), make([]float32, n*m)
		b.Run(fmt.Sprintf("n%d_k%d_m%d", n, k, m), func(b *testing.B) {
			benchLevels(b, func(b *testing.B) {
				clock := threadClock()
				for b.Loop() {
					MatMulNN(out, m, x, k, bm, m, n, k, m)
				}
				reportFlops(b, 2*float64(n*k*m), clock().Seconds())
			})
		})
	}
}

func BenchmarkMatMulF32(b *testing.B) {
	n, rows, cols := 128, 1536, 1536
	r := rand.New(rand.NewPCG(3, 3))
	w, x, out := randF32(r, rows*cols, 0), randF32(r, n*cols, 0), make([]float32, n*rows)
	benchLevels(b, func(b *testing.B) {
		clock := threadClock()
		for b.Loop() {
			MatMulF32(out, rows, w, x, n, cols)
		}
		reportFlops(b, 2*float64(n*rows*cols), clock().Seconds())
	})
}

func BenchmarkDot(b *testing.B) {
	for _, n := range []int{128, 1536} {
		r := rand.New(rand.NewPCG(4, 4))
		x, y := randF32(r, n, 0), randF32(r, n, 0)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			benchLevels(b, func(b *testing.B) {
				var s float32
				clock := threadClock()
				for b.Loop() {
					s += Dot(x, y)
				}
				secs := clock().Seconds()
				peakSink = s
				b.ReportMetric(2*float64(n)*float64(b.N)/secs/1e9, "GFLOP/s")
			})
		})
	}
}

func BenchmarkAxpy(b *testing.B) {
	n := 128
	r := rand.New(rand.NewPCG(5, 5))
	x, y := randF32(r, n, 0), randF32(r, n, 0)
	benchLevels(b, func(b *testing.B) {
		clock := threadClock()
		for b.Loop() {
			Axpy(y, 1e-3, x)
		}
		secs := clock().Seconds()
		b.ReportMetric(2*float64(n)*float64(b.N)/secs/1e9, "GFLOP/s")
	})
}

func BenchmarkFMAPeak(b *testing.B) {
	benchLevels(b, func(b *testing.B) {
		var flops int64
		clock := threadClock()
		for b.Loop() {
			flops += FMAPeakLoop(10000)
		}
		secs := clock().Seconds()
		b.ReportMetric(float64(flops)/secs/1e9, "GFLOP/s")
	})
}

// BenchmarkStreamRead is the bandwidth reference for the gemv figures: Dot
// of a 96 MiB vector with itself at the active level reads every byte once.
func BenchmarkStreamRead(b *testing.B) {
	x := randF32(rand.New(rand.NewPCG(6, 6)), l3Bytes/4, 0)
	var s float32
	clock := threadClock()
	for b.Loop() {
		s += Dot(x, x)
	}
	secs := clock().Seconds()
	peakSink = s
	b.ReportMetric(float64(l3Bytes)*float64(b.N)/secs/1e9, "GB/s")
}

// BenchmarkExp compares exp32 with the float64 math.Exp round trip it
// replaced, per element of a softmax-sized vector.
func BenchmarkExp(b *testing.B) {
	x := randF32(rand.New(rand.NewPCG(7, 7)), 1024, 0)
	y := make([]float32, len(x))
	b.Run("exp32", func(b *testing.B) {
		clock := threadClock()
		for b.Loop() {
			for i, v := range x {
				y[i] = exp32(v)
			}
		}
		b.ReportMetric(float64(clock().Nanoseconds())/float64(b.N*len(x)), "ns/elem")
	})
	b.Run("math.Exp", func(b *testing.B) {
		clock := threadClock()
		for b.Loop() {
			for i, v := range x {
				y[i] = float32(math.Exp(float64(v)))
			}
		}
		b.ReportMetric(float64(clock().Nanoseconds())/float64(b.N*len(x)), "ns/elem")
	})
}

// BenchmarkDequantRow: widening a 1536×1536 quantised matrix to fp32, the
// work prefill adds per matrix on a quantised file (MatMulQ's panels);
// ns/weight is the figure to compare with the f32 prefill kernel's time.
func BenchmarkDequantRow(b *testing.B) {
	const rows, cols = 1536, 1536
	r := rand.New(rand.NewPCG(5, 5))
	for _, q := range []Quant{Q8_0, Q4K, Q6K} {
		w := randBlocks(r, q, rows, cols)
		dst := make([]float32, cols)
		b.Run(q.String(), func(b *testing.B) {
			benchLevels(b, func(b *testing.B) {
				rb := q.RowBytes(cols)
				for b.Loop() {
					for i := range rows {
						DequantRow(q, dst, w[i*rb:])
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(rows*cols), "ns/weight")
			})
		})
	}
}

// BenchmarkMatMulQ: prefill of 32 tokens through a 1536×1536 matrix, Q4_K
// and Q8_0, against the same product on f32 weights (BenchmarkMatMulF32's
// kernel).
func BenchmarkMatMulQ(b *testing.B) {
	const n, rows, cols = 32, 1536, 1536
	r := rand.New(rand.NewPCG(6, 6))
	x, out := randF32(r, n*cols, 0), make([]float32, n*rows)
	for _, q := range []Quant{Q8_0, Q4K} {
		w := randBlocks(r, q, rows, cols)
		b.Run(q.String(), func(b *testing.B) {
			benchLevels(b, func(b *testing.B) {
				clock := threadClock()
				for b.Loop() {
					MatMulQ(nil, q, out, rows, w, x, n, cols)
				}
				reportFlops(b, 2*float64(n*rows*cols), clock().Seconds())
			})
			b.Run("avx2-reference-widening", func(b *testing.B) { // the widening before it had SIMD
				if !Supported(AVX2) {
					b.Skip("CPU lacks avx2")
				}
				prev := Active()
				defer SetLevel(prev)
				SetLevel(AVX2)
				saved := cur.dequantRow
				cur.dequantRow = dequantRowGeneric
				defer func() { cur.dequantRow = saved }()
				clock := threadClock()
				for b.Loop() {
					MatMulQ(nil, q, out, rows, w, x, n, cols)
				}
				reportFlops(b, 2*float64(n*rows*cols), clock().Seconds())
			})
		})
	}
	wf := randF32(r, rows*cols, 0)
	b.Run("f32", func(b *testing.B) {
		benchLevels(b, func(b *testing.B) {
			clock := threadClock()
			for b.Loop() {
				MatMulF32(out, rows, wf, x, n, cols)
			}
			reportFlops(b, 2*float64(n*rows*cols), clock().Seconds())
		})
	})
}
