//go:build amd64 && !purego

package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// gemmNNGo is the Go twin of gemmNN32x{4…12}AVX512 and gemmNN16x6AVX2
// (nt tokens × cols outputs), operation for operation: one math.FMA per
// term, in column order, from 0, then one fp32 store or add. The assembly
// must match it bit for bit.
func gemmNNGo(nt, cols int, out []float32, ldo int, b []float32, ldb int, x []float32, ldx, k, accum int) {
	for t := range nt {
		for j := range cols {
			var s float32
			for c := range k {
				s = float32(math.FMA(float64(x[t*ldx+c]), float64(b[c*ldb+j]), float64(s)))
			}
			if accum != 0 {
				out[t*ldo+j] += s
			} else {
				out[t*ldo+j] = s
			}
		}
	}
}

// TestGemmNN runs the tiles alone (AVX-512: 32 outputs × 4 to 12
// tokens; AVX2: 16 × 6): bit-identical to their Go twin, and within the
// float64 oracle's bound (plus one rounding of the add when
// accumulating), for k around the loop's edges and odd strides; out's gap
// cells (ldo = 37) and ends are guards.
func TestGemmNN(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, tl := range []struct {
		lvl      Level
		nt, cols int
		accums   int
	}{{AVX512, 12, colNN, 2}, {AVX512, 11, colNN, 2}, {AVX512, 10, colNN, 2}, {AVX512, 9, colNN, 2},
		{AVX512, 8, colNN, 2}, {AVX512, 7, colNN, 2}, {AVX512, 6, colNN, 2}, {AVX512, 5, colNN, 2},
		{AVX512, 4, colNN, 2}, {AVX2, tok2, col2, 2}} {
		if !Supported(tl.lvl) {
			t.Logf("CPU lacks %v: %d×%d tile skipped", tl.lvl, tl.cols, tl.nt)
			continue
		}
		for _, k := range []int{0, 1, 2, 15, 16, 17, 100, 257} {
			for _, ld := range [][2]int{{tl.cols, 0}, {45, 3}} { // ldb, ldx - k
				for accum := range tl.accums {
					testGemmNN(t, r, tl.nt, tl.cols, k, ld[0], k+ld[1], accum, false)
				}
			}
		}
	}
}

// TestGemm16x6 is TestGemmNN for the prefill's AVX2 tiles (6, 5 and 4
// tokens): a packed panel (ldb = 16) and k a multiple of 8, around one
// and many loop turns.
func TestGemm16x6(t *testing.T) {
	if !Supported(AVX2) {
		t.Skip("CPU lacks AVX2")
	}
	r := rand.New(rand.NewPCG(43, 44))
	for _, k := range []int{0, 8, 16, 24, 256, 264} {
		for _, dx := range []int{0, 3} {
			for accum := range 2 {
				for _, nt := range []int{tok2, 5, 4} {
					testGemmNN(t, r, nt, col2, k, col2, k+dx, accum, true)
				}
			}
		}
	}
}

// testGemmNN runs one tile (packed: gemm16x6AVX2) against gemmNNGo and
// the float64 oracle.
func testGemmNN(t *testing.T, r *rand.Rand, nt, cols, k, ldb, ldx, accum int, packed bool) {
	t.Helper()
	const ldo = 37
	name := fmt.Sprintf("%dx%d k%d ldb%d ldx%d accum%d", cols, nt, k, ldb, ldx, accum)
	b := randF32(r, max(0, (k-1)*ldb+cols), 1)
	x := randF32(r, max(0, (nt-1)*ldx+k), 3)
	out, check := guarded(t, (nt-1)*ldo+cols, 1)
	prev := randF32(r, len(out), 0)
	for tk := range nt {
		copy(out[tk*ldo:tk*ldo+cols], prev[tk*ldo:])
	}
	want := make([]float32, len(out))
	copy(want, out)
	gemmNNGo(nt, cols, want, ldo, b, ldb, x, ldx, k, accum)
	var bp, xp *float32
	if k > 0 {
		bp, xp = &b[0], &x[0]
	}
	switch {
	case packed:
		tile16(nt, &out[0], ldo, bp, xp, ldx, k, accum)
	case cols == col2:
		gemmNN16x6AVX2(&out[0], ldo, bp, ldb, xp, ldx, k, accum)
	default:
		tileNN(nt, &out[0], ldo, bp, ldb, xp, ldx, k, accum)
	}
	check()
	for i, v := range out {
		tk, j := i/ldo, i%ldo
		if j >= cols {
			if v == v {
				t.Fatalf("%s: gap cell out[%d,%d] overwritten: %v", name, tk, j, v)
			}
			continue
		}
		if math.Float32bits(v) != math.Float32bits(want[i]) {
			t.Fatalf("%s: out[%d,%d] = %v, Go twin %v", name, tk, j, v, want[i])
		}
		var s, abs float64
		for c := range k {
			p := float64(x[tk*ldx+c]) * float64(b[c*ldb+j])
			s += p
			abs += math.Abs(p)
		}
		tol := sumTol(k)
		if accum != 0 {
			s += float64(prev[i])
			abs += math.Abs(float64(prev[i]))
			tol += u32
		}
		within(t, fmt.Sprintf("%s out[%d,%d]", name, tk, j), v, s, abs, tol)
	}
}

// TestPackT32 checks both packers against the definition
// dst[c·32+j] = float32(src[j·lds+c]) exactly (packing only moves and
// widens), for several row strides and a misaligned source; dst sits
// between guard cells.
func TestPackT32(t *testing.T) {
	if !Supported(AVX512) {
		t.Skip("CPU lacks AVX-512")
	}
	r := rand.New(rand.NewPCG(43, 44))
	for _, k := range []int{0, 16, 32, 48, 256} {
		for _, extra := range []int{0, 1, 7, 16, 333} {
			lds := k + extra
			name := fmt.Sprintf("k%d lds%d", k, lds)
			sb, sf := randBF16(r, colNN*lds+1, 1), randF32(r, colNN*lds+1, 3)
			db, checkB := guarded(t, k*colNN, 1)
			df, checkF := guarded(t, k*colNN, 0)
			if k > 0 {
				packT32BF16AVX512(&db[0], &sb[0], lds, k)
				packT32F32AVX512(&df[0], &sf[0], lds, k)
			}
			checkB()
			checkF()
			for c := range k {
				for j := range colNN {
					if got, want := db[c*colNN+j], sb[j*lds+c].Float32(); math.Float32bits(got) != math.Float32bits(want) {
						t.Fatalf("bf16 %s: dst[%d][%d] = %v, want %v", name, c, j, got, want)
					}
					if got, want := df[c*colNN+j], sf[j*lds+c]; math.Float32bits(got) != math.Float32bits(want) {
						t.Fatalf("f32 %s: dst[%d][%d] = %v, want %v", name, c, j, got, want)
					}
				}
			}
		}
	}
}

// TestMatMulBcastEdges runs MatMul at the AVX-512 levels for token counts
// from below nBcast to past a second leftover tile, and around nBcastF32,
// with rows that leave partial panels and columns that leave a tail and a
// short last block.
func TestMatMulBcastEdges(t *testing.T) {
	var shapes []gemmShape
	for n := nBcast - 1; n <= nBcast+tokNN+1; n++ {
		shapes = append(shapes, gemmShape{n, colNN + 13, kcNN + 16 + 5, 1})
	}
	for _, n := range []int{nBcastF32 - 1, nBcastF32, nBcastF32 + 7} {
		shapes = append(shapes, gemmShape{n, colNN + 13, kcNN + 16 + 5, 1})
	}
	defer func(v int) { xInL2 = v }(xInL2)
	for _, order := range []struct {
		name string
		xMax int
	}{{"panels first", 1 << 40}, {"column blocks first", 0}} {
		xInL2 = order.xMax
		t.Run(order.name, func(t *testing.T) {
			forEachLevel(t, func(t *testing.T, l Level) {
				if l < AVX512 {
					t.Skip("broadcast path is AVX-512 only")
				}
				testMatMulShapes(t, shapes)
			})
		})
	}
}

// TestMatMulColumnBlocksFirst runs the float64 oracle's shapes with the
// column blocks first (the order of long prompts) at every level: at the
// default, short prompts' x fits in L2 and their panels run first.
func TestMatMulColumnBlocksFirst(t *testing.T) {
	defer func(v int) { xInL2 = v }(xInL2)
	xInL2 = 0
	forEachLevel(t, func(t *testing.T, l Level) { testMatMulShapes(t, gemmShapes()) })
}

// TestMatMulOrdersAgree: running W's panels first or its column blocks
// first (in one band of all rows, or bands of one panel) gives every
// output bit for bit the same sum, on the broadcast tiles and on the 8×3
// and 4-row tiles of fewer tokens.
func TestMatMulOrdersAgree(t *testing.T) {
	if !Supported(AVX512) {
		t.Skip("CPU lacks AVX-512")
	}
	defer func(x, o int) { xInL2, outInL2 = x, o }(xInL2, outInL2)
	const rows, cols = 2*colNN + 13, 3*kc + 16 + 3
	r := rand.New(rand.NewPCG(53, 54))
	w := randBF16(r, rows*cols, 0)
	for _, n := range []int{2, 13, 29} {
		x := randF32(r, n*cols, 0)
		var outs [3][]float32
		for i, xo := range bandOrders2 {
			xInL2, outInL2, outs[i] = xo[0], xo[1], make([]float32, n*rows)
			if n < nBcast {
				matMulBF16By(isaAVX512, NewWorkspace(), outs[i], rows, w, x, n, cols)
			} else {
				matMulBcast(NewWorkspace(), outs[i], rows, w, x, n, cols)
			}
		}
		for o := 1; o < len(outs); o++ {
			for i := range outs[0] {
				if math.Float32bits(outs[0][i]) != math.Float32bits(outs[o][i]) {
					t.Fatalf("n = %d, out[%d]: %v panels first, %v in the order %v", n, i, outs[0][i], outs[o][i], bandOrders2[o])
				}
			}
		}
	}
}

// BenchmarkGemmNN32x12 runs the tile alone on a panel and tokens that stay
// in L1: the kernel's own ceiling.
func BenchmarkGemmNN32x12(b *testing.B) {
	if !Supported(AVX512) {
		b.Skip("CPU lacks AVX-512")
	}
	for _, k := range []int{128, 256, 512} {
		r := rand.New(rand.NewPCG(45, 46))
		bp, x, out := randF32(r, k*colNN, 0), randF32(r, tokNN*k, 0), make([]float32, tokNN*colNN)
		b.Run(fmt.Sprint("k", k), func(b *testing.B) {
			clock := threadClock()
			for b.Loop() {
				gemmNN32x12AVX512(&out[0], colNN, &bp[0], colNN, &x[0], k, k, 0)
			}
			reportFlops(b, 2*float64(tokNN*colNN*k), clock().Seconds())
		})
	}
}

// BenchmarkPackT32 packs one 32-row panel of a Qwen-width matrix (rows
// 1536 floats or bf16 apart), in GB/s of packed floats written.
func BenchmarkPackT32(b *testing.B) {
	if !Supported(AVX512) {
		b.Skip("CPU lacks AVX-512")
	}
	const cols, k = 1536, 256
	r := rand.New(rand.NewPCG(47, 48))
	sb, sf, dst := randBF16(r, colNN*cols, 0), randF32(r, colNN*cols, 0), make([]float32, k*colNN)
	for _, name := range []string{"bf16", "f32"} {
		b.Run(name, func(b *testing.B) {
			clock := threadClock()
			for b.Loop() {
				if name == "bf16" {
					packT32BF16AVX512(&dst[0], &sb[0], cols, k)
				} else {
					packT32F32AVX512(&dst[0], &sf[0], cols, k)
				}
			}
			b.ReportMetric(float64(4*k*colNN)*float64(b.N)/clock().Seconds()/1e9, "GB/s")
		})
	}
}

// BenchmarkMatMulPaths runs both AVX-512 prefill paths over token counts
// around nBcast and nBcastF32, for choosing them: the 8×3 dot-product
// tiles and the packed broadcast tiles, on bf16 weights that stay in L3
// and that do not, and on f32 weights.
func BenchmarkMatMulPaths(b *testing.B) {
	if !Supported(AVX512) {
		b.Skip("CPU lacks AVX-512")
	}
	for _, sh := range [][2]int{{1536, 1536}, {8960, 1536}} {
		rows, cols := sh[0], sh[1]
		r := rand.New(rand.NewPCG(49, 50))
		w := randBF16(r, rows*cols, 0)
		for _, n := range []int{12, 16, 20, 24, 32, 48, 64, 128, 512} {
			x, out := randF32(r, n*cols, 0), make([]float32, n*rows)
			ws := NewWorkspace()
			for _, path := range []string{"8x3", "bcast"} {
				b.Run(fmt.Sprintf("bf16_%dx%d/n%d/%s", rows, cols, n, path), func(b *testing.B) {
					clock := threadClock()
					for b.Loop() {
						if path == "8x3" {
							matMulBF16By(isaAVX512, ws, out, rows, w, x, n, cols)
						} else {
							matMulBcast(ws, out, rows, w, x, n, cols)
						}
					}
					reportFlops(b, 2*float64(n*rows*cols), clock().Seconds())
				})
			}
		}
	}
	// f32: a projection, and attention's products as MatMulF32 runs them
	// (QKᵀ: W = K, nk × d; PV: W = Vᵀ, d × nk).
	for _, sh := range [][2]int{{1536, 1536}, {3139, 128}, {128, 3139}} {
		rows, cols := sh[0], sh[1]
		r := rand.New(rand.NewPCG(51, 52))
		w := randF32(r, rows*cols, 0)
		for _, n := range []int{16, 24, 32, 48, 64, 96, 128} {
			x, out := randF32(r, n*cols, 0), make([]float32, n*rows)
			ws := NewWorkspace()
			for _, path := range []string{"8x3", "bcast"} {
				b.Run(fmt.Sprintf("f32_%dx%d/n%d/%s", rows, cols, n, path), func(b *testing.B) {
					clock := threadClock()
					for b.Loop() {
						if path == "8x3" {
							matMulF32By(isaAVX512, out, rows, w, x, n, cols)
						} else {
							matMulBcast(ws, out, rows, w, x, n, cols)
						}
					}
					reportFlops(b, 2*float64(n*rows*cols), clock().Seconds())
				})
			}
		}
	}
}

// TestPackT16 checks the AVX2 packers against the definition
// dst[c·16+j] = float32(src[j·lds+c]) exactly, for several row strides;
// dst sits between guard cells.
func TestPackT16(t *testing.T) {
	if !Supported(AVX2) {
		t.Skip("CPU lacks AVX2")
	}
	r := rand.New(rand.NewPCG(55, 56))
	for _, k := range []int{0, 8, 16, 40, 256} {
		for _, extra := range []int{0, 1, 7, 16, 333} {
			lds := k + extra
			name := fmt.Sprintf("k%d lds%d", k, lds)
			sb, sf := randBF16(r, col2*lds+1, 1), randF32(r, col2*lds+1, 3)
			db, checkB := guarded(t, k*col2, 1)
			df, checkF := guarded(t, k*col2, 0)
			if k > 0 {
				packT16BF16AVX2(&db[0], &sb[0], lds, k)
				packT16F32AVX2(&df[0], &sf[0], lds, k)
			}
			checkB()
			checkF()
			for c := range k {
				for j := range col2 {
					if got, want := db[c*col2+j], sb[j*lds+c].Float32(); math.Float32bits(got) != math.Float32bits(want) {
						t.Fatalf("bf16 %s: dst[%d][%d] = %v, want %v", name, c, j, got, want)
					}
					if got, want := df[c*col2+j], sf[j*lds+c]; math.Float32bits(got) != math.Float32bits(want) {
						t.Fatalf("f32 %s: dst[%d][%d] = %v, want %v", name, c, j, got, want)
					}
				}
			}
		}
	}
}

// TestMatMulBcastEdgesAVX2 is TestMatMulBcastEdges at the AVX2 level:
// token counts from below nBcast2 to past a second leftover tile and
// around nBcast2F32, rows that leave a partial 16-row panel, columns that
// leave a tail and a short last block, W's panels first and its column
// blocks first, against the float64 oracle.
func TestMatMulBcastEdgesAVX2(t *testing.T) {
	if !Supported(AVX2) {
		t.Skip("CPU lacks AVX2")
	}
	var shapes []gemmShape
	for n := nBcast2 - 1; n <= nBcast2+2*tok2+1; n++ {
		shapes = append(shapes, gemmShape{n, 2*col2 + 5, kcNN + 8 + 5, 1})
	}
	for _, n := range []int{nBcast2F32 - 1, nBcast2F32, nBcast2F32 + 7} {
		shapes = append(shapes, gemmShape{n, col2 + 13, kcNN + 16 + 5, 1})
	}
	defer SetLevel(Active())
	SetLevel(AVX2)
	defer func(x, o int) { xInL2, outInL2 = x, o }(xInL2, outInL2)
	for _, xo := range bandOrders2 {
		xInL2, outInL2 = xo[0], xo[1]
		testMatMulShapes(t, shapes)
	}
}

// bandOrders2 are xInL2, outInL2 pairs that run the bands' three orders:
// panels first, one band of all rows with the column blocks first, and
// bands of one panel (the last one partial in the tests' shapes of two
// panels and a few rows).
var bandOrders2 = [][2]int{{1 << 40, 0}, {0, 1 << 40}, {0, 0}}

// TestMatMulOrdersAgreeAVX2: the AVX2 broadcast path gives every output
// the same bits with W's panels first, its column blocks first over all
// rows, or bands of rows (bandOrders2).
func TestMatMulOrdersAgreeAVX2(t *testing.T) {
	if !Supported(AVX2) {
		t.Skip("CPU lacks AVX2")
	}
	defer func(x, o int) { xInL2, outInL2 = x, o }(xInL2, outInL2)
	const rows, cols = 2*col2 + 5, 3*kcNN + 8 + 3
	r := rand.New(rand.NewPCG(57, 58))
	w := randBF16(r, rows*cols, 0)
	for _, n := range []int{nBcast2, 29} {
		x := randF32(r, n*cols, 0)
		var outs [3][]float32
		for i, xo := range bandOrders2 {
			xInL2, outInL2, outs[i] = xo[0], xo[1], make([]float32, n*rows)
			matMulBcastAVX2(NewWorkspace(), outs[i], rows, w, x, n, cols)
		}
		for o := 1; o < len(outs); o++ {
			for i := range outs[0] {
				if math.Float32bits(outs[0][i]) != math.Float32bits(outs[o][i]) {
					t.Fatalf("n = %d, out[%d]: %v panels first, %v in the order %v", n, i, outs[0][i], outs[o][i], bandOrders2[o])
				}
			}
		}
	}
}

// TestMatMulQBands: the AVX2 and AVX-512 quantised prefills, which widen
// each block into its packed panel, give every output the bits of
// widening qPanel rows and running the f32 product on them
// (matMulQPanels), in each of the bands' orders, for every format, a
// partial last panel and a short last column block (Q8_0's 96 columns);
// MatMulQ's float64 oracle test (TestMatMulQ) runs them too.
func TestMatMulQBands(t *testing.T) {
	defer SetLevel(Active())
	defer func(x, o int) { xInL2, outInL2 = x, o }(xInL2, outInL2)
	for _, l := range []Level{AVX2, AVX512} {
		if !Supported(l) {
			t.Logf("CPU lacks %v", l)
			continue
		}
		SetLevel(l)
		r := rand.New(rand.NewPCG(59, 60))
		const rows, n = 2*colNN + 5, nBcastF32 + 5
		for _, q := range Quants() {
			for _, cols := range []int{quantCols[q][1], kcNN + 2*q.BlockLen()} {
				w, x := randBlocks(r, q, rows, cols), randF32(r, n*cols, 0)
				want := make([]float32, n*rows)
				matMulQPanels(nil, q, want, rows, w, x, n, cols)
				for _, xo := range bandOrders2 {
					xInL2, outInL2 = xo[0], xo[1]
					got := make([]float32, n*rows)
					MatMulQ(nil, q, got, rows, w, x, n, cols)
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("%v: %v %d cols, order %v: out[%d] = %v, qPanel rows widened %v", l, q, cols, xo, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}
