package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
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

func BenchmarkMatMulBF16(b *testing.B) {
	for _, n := range []int{64, 128} {
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
					secs := clock().Seconds()
					b.ReportMetric(2*float64(n*rows*cols)*float64(b.N)/secs/1e9, "GFLOP/s")
				})
			})
		}
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
		secs := clock().Seconds()
		b.ReportMetric(2*float64(n*rows*cols)*float64(b.N)/secs/1e9, "GFLOP/s")
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
