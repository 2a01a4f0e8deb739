//go:build amd64 && !purego

package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// oneStreamQ8 calls a level's one-stream row kernel one row at a time:
// AVX512-VNNI's if vnni, else d's.
func oneStreamQ8(vnni bool, d *avx2Dots, q Quant, out []float32, w []byte, a *QuantizedX) {
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
			d.q8(o, 1, wr, &a.q[0], &a.de[0], &a.n128[0], nb)
		case q == Q4K:
			d.q4k(o, 1, wr, &a.q[0], &a.dc[0], &a.s[0], nb)
		case q == Q5K:
			d.q5k(o, 1, wr, &a.q[0], &a.dc[0], &a.s[0], nb)
		case q == Q6K:
			dx, n := d.q6kArgs(a)
			d.q6k(o, 1, wr, &a.q[0], dx, n, nb)
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
		dots   *avx2Dots
		driver func(Quant, []float32, []byte, *QuantizedX)
	}{
		{"vnni", hasVNNI, true, nil, matVecQ8VNNI},
		{"avx2", hasAVX2, false, dotsVPMADDUBSW, dotsVPMADDUBSW.matVec},
		{"avxvnni", hasAVXVNNI, false, dotsAVXVNNI, dotsAVXVNNI.matVec},
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
						oneStreamQ8(l.vnni, l.dots, q, want, w, &a)
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

// TestMatVecQ8X86Kernels: every x86 integer decode path against the
// float64 oracle (checkQ8), whichever of them a level picks on this CPU
// (on Zen 4 the AVX-512 levels decode Q8_0 with VPMADDUBSW:
// matVecQ8Halves), so none goes unchecked: AVX2's VPMADDUBSW + VPMADDWD,
// AVX-VNNI's VEX VPDPBUSD, which gives VPMADDUBSW's bits (their int32
// sums are exact), and AVX512-VNNI's VPDPBUSD on Z registers.
func TestMatVecQ8X86Kernels(t *testing.T) {
	if !hasAVX2 {
		t.Skip("CPU lacks AVX2")
	}
	r := rand.New(rand.NewPCG(31, 32))
	var a QuantizedX
	for _, q := range []Quant{Q8_0, Q4K, Q5K, Q6K} {
		for _, cols := range quantCols[q] {
			for _, rows := range []int{1, 3, 5, 9, 14} {
				what := fmt.Sprintf("%v %dx%d", q, rows, cols)
				w := randBlocks(r, q, rows, cols)
				x := actRow(r, cols, 0)
				a.Quantize(x)
				madd := make([]float32, rows)
				dotsVPMADDUBSW.matVec(q, madd, w, &a)
				checkQ8(t, what+" VPMADDUBSW", madd, q, w, x)
				if hasVNNI {
					z := make([]float32, rows)
					matVecQ8VNNI(q, z, w, &a)
					checkQ8(t, what+" AVX512-VNNI", z, q, w, x)
				}
				if hasVNNI && q == Q4K {
					lanes := make([]float32, rows)
					a.layLanes() // whichever quantiser this level runs
					dotQ4KLanes(lanes, w, &a, cols/256)
					checkQ8(t, what+" AVX512-VNNI, lane order", lanes, q, w, x)
				}
				if !hasAVXVNNI {
					continue
				}
				vnni := make([]float32, rows)
				dotsAVXVNNI.matVec(q, vnni, w, &a)
				checkQ8(t, what+" AVX-VNNI", vnni, q, w, x)
				for i := range vnni {
					if math.Float32bits(vnni[i]) != math.Float32bits(madd[i]) {
						t.Fatalf("%s row %d: AVX-VNNI %v, VPMADDUBSW %v", what, i, vnni[i], madd[i])
					}
				}
			}
		}
	}
	if !hasAVXVNNI || !hasVNNI {
		t.Logf("checked VPMADDUBSW; AVX-VNNI %v, AVX512-VNNI %v", hasAVXVNNI, hasVNNI)
	}
}

// TestQuantArithmeticNamesWhatRuns: at every x86 level with integer
// decode, QuantArithmetic(q) names the kernel MatVecQ8 runs for q: the
// candidate whose bits it gives (AVX2's, or AVX512-VNNI's where the CPU
// has it; several may match where their sums agree), so a per-format
// pick (matVecQ8Halves) without its label fails here.
func TestQuantArithmeticNamesWhatRuns(t *testing.T) {
	defer Use(Current())
	kernels := []struct {
		name string
		ok   bool
		run  func(Quant, []float32, []byte, *QuantizedX)
	}{
		{q8NameAVX2, hasAVX2, dotsAVX2.matVec},
		{"AVX512-VNNI VPDPBUSD", hasVNNI, matVecQ8VNNI},
		{"AVX512-VNNI VPDPBUSD", hasVNNI, matVecQ8VNNILanes},
	}
	r := rand.New(rand.NewPCG(35, 36))
	var a QuantizedX
	for _, l := range []Level{AVX2, AVX512, AVX512BF16} {
		c, _ := ChoiceOf(l.String())
		if !Supported(l) || Use(c) != nil {
			continue
		}
		for _, q := range []Quant{Q8_0, Q4K, Q5K, Q6K} {
			if !IntegerQuant(q) {
				continue
			}
			const rows, cols = 9, 512
			w := randBlocks(r, q, rows, cols)
			a.Quantize(actRow(r, cols, 0))
			got := make([]float32, rows)
			MatVecQ8(q, got, w, &a)
			label, named := QuantArithmetic(q), false
			for _, k := range kernels {
				if !k.ok || !strings.Contains(label, "("+k.name+")") {
					continue
				}
				want := make([]float32, rows)
				k.run(q, want, w, &a)
				same := true
				for i := range got {
					same = same && math.Float32bits(got[i]) == math.Float32bits(want[i])
				}
				named = named || same
			}
			if !named {
				t.Errorf("%v, %v: %q names no kernel that gives MatVecQ8's bits", l, q, label)
			}
		}
	}
}

// TestFarPrefetchTwin: Q6_K's four-stream AVX512-VNNI kernel with the
// far prefetch (rows4Q6KVNNI) differs from the kernel only in how it
// prefetches, so every output keeps its bits, whichever of the two this
// CPU picks: row counts per stream of 1 to 5, rows of one to 35 blocks.
func TestFarPrefetchTwin(t *testing.T) {
	if !hasVNNI {
		t.Skip("CPU lacks AVX512-VNNI")
	}
	r := rand.New(rand.NewPCG(37, 38))
	var a QuantizedX
	for _, cols := range []int{256, 1536, 8960} {
		for _, per := range []int{1, 2, 5} {
			rows, nb, rb := 4*per, cols/256, Q6K.RowBytes(cols)
			w := randBlocks(r, Q6K, rows, cols)
			a.Quantize(actRow(r, cols, 0))
			got, want := make([]float32, rows), make([]float32, rows)
			dotRows4Q6KFarVNNI(&got[0], per, &w[0], per*rb, &a.q[0], &a.dc[0], &a.n32[0], nb)
			dotRows4Q6KVNNI(&want[0], per, &w[0], per*rb, &a.q[0], &a.dc[0], &a.n32[0], nb)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%dx%d row %d: far twin %v, kernel %v", rows, cols, i, got[i], want[i])
				}
			}
		}
	}
}

// BenchmarkMatVecQ8AVX2Twins: the two AVX2 integer paths on one weight
// matrix of 256 × 1536 read again and again from L2 (the kernels' compute
// ceiling, one thread), in weight GB/s per second of this thread's CPU
// time; the activation row is quantised once per call, as in decode.
//
//	go test -run '^$' -bench AVX2Twins -benchtime 3000x ./kernels/
func BenchmarkMatVecQ8AVX2Twins(b *testing.B) {
	if !hasAVX2 {
		b.Skip("CPU lacks AVX2")
	}
	paths := []struct {
		name string
		ok   bool
		d    *avx2Dots
	}{{"vpmaddubsw", true, dotsVPMADDUBSW}, {"avxvnni", hasAVXVNNI, dotsAVXVNNI}}
	for _, q := range []Quant{Q8_0, Q4K, Q5K, Q6K} {
		rows, cols := 256, 1536
		r := rand.New(rand.NewPCG(5, 5))
		w, x := randBlocks(r, q, rows, cols), randF32(r, cols, 0)
		out := make([]float32, rows)
		for _, p := range paths {
			b.Run(fmt.Sprintf("%v/%s", q, p.name), func(b *testing.B) {
				if !p.ok {
					b.Skip("CPU lacks AVX-VNNI")
				}
				var a QuantizedX
				clock := threadClock()
				for b.Loop() {
					a.Quantize(x)
					p.d.matVec(q, out, w, &a)
				}
				b.ReportMetric(float64(len(w))*float64(b.N)/clock().Seconds()/1e9, "GB/s")
			})
		}
	}
}

// matVecQ8VNNILanes is matVecQ8VNNI with Q4_K on the lane-order kernels
// where a's activations are laid out for them, as on Zen 4.
func matVecQ8VNNILanes(q Quant, out []float32, w []byte, a *QuantizedX) {
	if q == Q4K && a.laned {
		dotQ4KLanes(out, w, a, a.cols/256)
		return
	}
	matVecQ8VNNI(q, out, w, a)
}

// TestQ4KLaneOrder: q4kLaneX writes the readable reference's bytes and
// floats (q4kLaneXGeneric), for rows of one to 35 blocks.
func TestQ4KLaneOrder(t *testing.T) {
	if !hasVNNI {
		t.Skip("CPU lacks AVX512-VNNI")
	}
	r := rand.New(rand.NewPCG(39, 40))
	var a QuantizedX
	for _, cols := range []int{256, 512, 1536, 8960} {
		a.Quantize(actRow(r, cols, 0))
		a.layLanes() // whichever quantiser this level runs
		xk, kds := make([]int8, cols), make([]float32, cols/16)
		q4kLaneXGeneric(xk, kds, &a)
		for i := range xk {
			if xk[i] != a.k[i] {
				t.Fatalf("cols %d: byte %d is %d, reference %d", cols, i, a.k[i], xk[i])
			}
		}
		for i := range kds {
			if math.Float32bits(kds[i]) != math.Float32bits(a.kds[i]) {
				t.Fatalf("cols %d: kds[%d] is %v, reference %v", cols, i, a.kds[i], kds[i])
			}
		}
	}
}

// TestQ4KLanesStreamsMatchOneStream: the lane-order Q4_K driver, four
// streams and the rows left over as one, gives every row the bits of its
// one-stream kernel, and the float64 oracle's sums (checkQ8).
func TestQ4KLanesStreamsMatchOneStream(t *testing.T) {
	if !hasVNNI {
		t.Skip("CPU lacks AVX512-VNNI")
	}
	r := rand.New(rand.NewPCG(41, 42))
	var a QuantizedX
	for _, cols := range []int{256, 512, 768, 1280, 1536} {
		nb, rb := cols/256, Q4K.RowBytes(cols)
		for _, rows := range []int{1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 16, 17, 37} {
			what := fmt.Sprintf("%dx%d", rows, cols)
			w := randBlocks(r, Q4K, rows, cols)
			x := actRow(r, cols, 0)
			a.Quantize(x)
			a.layLanes() // whichever quantiser this level runs
			got, want := make([]float32, rows), make([]float32, rows)
			dotQ4KLanes(got, w, &a, nb)
			for i := range want {
				dotRowsQ4KLanesVNNI(&want[i], 1, &w[i*rb], &a.k[0], &a.kds[0], nb)
			}
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s row %d: %v, one-stream kernel %v", what, i, got[i], want[i])
				}
			}
			checkQ8(t, what+" lane order", got, Q4K, w, x)
		}
	}
}
