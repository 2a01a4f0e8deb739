//go:build amd64 && !purego

package kernels

import "unsafe"

// Stubs in gemm_amd64.s. A micro-kernel computes the tile
// out[t·ldo+r] (+)= Σ_{c<k} w[r·ldw+c]·x[t·ldx+c] for r < 4, t < T
// (T = 3 for AVX2, 6 for AVX-512), k a multiple of the step (8, 16, 32).

//go:noescape
func gemm4x3F32AVX2(out *float32, ldo int, w *float32, ldw int, x *float32, ldx int, k int, accum int)

//go:noescape
func gemm4x6F32AVX512(out *float32, ldo int, w *float32, ldw int, x *float32, ldx int, k int, accum int)

//go:noescape
func gemm4x6BF16DP(out *float32, ldo int, w *BF16, ldw int, x *BF16, ldx int, k int, accum int)

// widen: dst[i] = src[i].Float32(), n a multiple of 8 / 16.
//
//go:noescape
func widenAVX2(dst *float32, src *BF16, n int)

//go:noescape
func widenAVX512(dst *float32, src *BF16, n int)

// roundBF16DP: dst[i] = FromFloat32(src[i]) with subnormals read as zero;
// n a multiple of 16.
//
//go:noescape
func roundBF16DP(dst *BF16, src *float32, n int)

// prefetch4 hints rows p + i·ld (i < 4, n bytes each, ld in bytes) into L2.
//
//go:noescape
func prefetch4(p unsafe.Pointer, ld int, n int)

// prefetchNextPanel hints the 4 × k panel after rows r..r+3 of w, if any.
func prefetchNextPanel[E BF16 | float32](w []E, r, rows, cols, k0, k int) {
	if r+8 <= rows {
		var e E
		size := int(unsafe.Sizeof(e))
		prefetch4(unsafe.Pointer(&w[(r+4)*cols+k0]), cols*size, k*size)
	}
}

// gemmLevel bundles one level's kernels for the shared blocking drivers.
type gemmLevel struct {
	micro func(out *float32, ldo int, w *float32, ldw int, x *float32, ldx int, k int, accum int)
	tok   int // tokens per micro tile
	step  int // columns per vector step
	gemv  gemv4F32Func
	gemvB gemv4BF16Func
	widen func(dst *float32, src *BF16, n int)
}

var (
	gemmAVX2   = gemmLevel{gemm4x3F32AVX2, 3, 8, gemv4F32AVX2, gemv4BF16AVX2, widenAVX2}
	gemmAVX512 = gemmLevel{gemm4x6F32AVX512, 6, 16, gemv4F32AVX512, gemv4BF16AVX512, widenAVX512}
)

// kc is the column block. Measured on the 2-core Zen box: one 4-row panel
// of W (4·kc floats, 8 KiB) stays in L1 while every token of the block
// (n·kc floats, 256 KiB at n = 128) streams from L2; smaller blocks pay
// more horizontal sums per FMA, larger ones spill the panel.
const kc = 512

func matMulF32AVX2(out []float32, ldOut int, w, x []float32, n, cols int) {
	gemmAVX2.matMulF32(out, ldOut, w, x, n, cols)
}

func matMulF32AVX512(out []float32, ldOut int, w, x []float32, n, cols int) {
	gemmAVX512.matMulF32(out, ldOut, w, x, n, cols)
}

func matMulBF16AVX2(ws *Workspace, out []float32, ldOut int, w []BF16, x []float32, n, cols int) {
	gemmAVX2.matMulBF16(ws, out, ldOut, w, x, n, cols)
}

func matMulBF16AVX512(ws *Workspace, out []float32, ldOut int, w []BF16, x []float32, n, cols int) {
	gemmAVX512.matMulBF16(ws, out, ldOut, w, x, n, cols)
}

// matMulF32 walks column blocks of kc, 4-row panels of W and tiles of tok
// tokens; the first block stores, later ones accumulate. Tokens left over
// after the last full tile and rows left over after the last full panel go
// through the 4-row gemv kernel; columns past the last whole vector go
// through Go.
func (g *gemmLevel) matMulF32(out []float32, ldOut int, w, x []float32, n, cols int) {
	rows := len(w) / cols
	m := cols &^ (g.step - 1)
	var quad [4]float32
	for k0 := 0; k0 < m; k0 += kc {
		k, acc := min(kc, m-k0), boolInt(k0 > 0)
		r := 0
		for ; r+4 <= rows; r += 4 {
			prefetchNextPanel(w, r, rows, cols, k0, k)
			wp := w[r*cols+k0:]
			t := 0
			for ; t+g.tok <= n; t += g.tok {
				g.micro(&out[t*ldOut+r], ldOut, &wp[0], cols, &x[t*cols+k0], cols, k, acc)
			}
			for ; t < n; t++ {
				g.gemv(&quad[0], &wp[0], cols, &x[t*cols+k0], k)
				put(out[t*ldOut+r:t*ldOut+r+4], quad[:], acc)
			}
		}
		for ; r < rows; r++ {
			for t := range n {
				g.gemv(&quad[0], &w[r*cols+k0], 0, &x[t*cols+k0], k)
				put(out[t*ldOut+r:t*ldOut+r+1], quad[:1], acc)
			}
		}
	}
	addColumnTailF32(out, ldOut, w, x, n, cols, m)
}

// matMulBF16 is matMulF32 with each 4 × k panel of W widened to fp32 into
// the workspace first (once, then reused by every token tile), so the
// micro-kernel's inner loop is pure FMA.
func (g *gemmLevel) matMulBF16(ws *Workspace, out []float32, ldOut int, w []BF16, x []float32, n, cols int) {
	rows := len(w) / cols
	m := cols &^ (g.step - 1)
	panel := ws.panel(4 * kc)
	var quad [4]float32
	for k0 := 0; k0 < m; k0 += kc {
		k, acc := min(kc, m-k0), boolInt(k0 > 0)
		r := 0
		for ; r+4 <= rows; r += 4 {
			prefetchNextPanel(w, r, rows, cols, k0, k)
			for i := range 4 {
				g.widen(&panel[i*k], &w[(r+i)*cols+k0], k)
			}
			t := 0
			for ; t+g.tok <= n; t += g.tok {
				g.micro(&out[t*ldOut+r], ldOut, &panel[0], k, &x[t*cols+k0], cols, k, acc)
			}
			for ; t < n; t++ {
				g.gemv(&quad[0], &panel[0], k, &x[t*cols+k0], k)
				put(out[t*ldOut+r:t*ldOut+r+4], quad[:], acc)
			}
		}
		for ; r < rows; r++ {
			for t := range n {
				g.gemvB(&quad[0], &w[r*cols+k0], 0, &x[t*cols+k0], k)
				put(out[t*ldOut+r:t*ldOut+r+1], quad[:1], acc)
			}
		}
	}
	addColumnTailBF16(out, ldOut, w, x, n, cols, m)
}

// matMulBF16DotBF16 is the AVX512_BF16 prefill: x is rounded to bf16 once
// per call into the workspace, then VDPBF16PS tiles read W in place (no
// widening). Leftover tokens and rows use the exact widening gemv.
func matMulBF16DotBF16(ws *Workspace, out []float32, ldOut int, w []BF16, x []float32, n, cols int) {
	const step = 32
	rows := len(w) / cols
	m := cols &^ (step - 1)
	var xb []BF16
	if m > 0 && n >= 6 && rows >= 4 {
		xb = ws.bf16X(n * cols)
		roundBF16(xb, x)
	}
	var quad [4]float32
	for k0 := 0; k0 < m; k0 += kcDP {
		k, acc := min(kcDP, m-k0), boolInt(k0 > 0)
		r := 0
		for ; r+4 <= rows; r += 4 {
			prefetchNextPanel(w, r, rows, cols, k0, k)
			t := 0
			for ; t+6 <= n; t += 6 {
				gemm4x6BF16DP(&out[t*ldOut+r], ldOut, &w[r*cols+k0], cols, &xb[t*cols+k0], cols, k, acc)
			}
			for ; t < n; t++ {
				gemv4BF16AVX512(&quad[0], &w[r*cols+k0], cols, &x[t*cols+k0], k)
				put(out[t*ldOut+r:t*ldOut+r+4], quad[:], acc)
			}
		}
		for ; r < rows; r++ {
			for t := range n {
				gemv4BF16AVX512(&quad[0], &w[r*cols+k0], 0, &x[t*cols+k0], k)
				put(out[t*ldOut+r:t*ldOut+r+1], quad[:1], acc)
			}
		}
	}
	addColumnTailBF16(out, ldOut, w, x, n, cols, m)
}

// kcDP is kc for the bf16 tiles: a panel is half the bytes, so twice the
// columns fit the same L1 share.
const kcDP = 1024

// roundBF16 rounds x into xb: whole vectors with VCVTNEPS2BF16, the tail
// with FromFloat32.
func roundBF16(xb []BF16, x []float32) {
	m := len(x) &^ 15
	if m > 0 {
		roundBF16DP(&xb[0], &x[0], m)
	}
	for i := m; i < len(x); i++ {
		xb[i] = FromFloat32(x[i])
	}
}

// put stores s into dst, or adds it when acc is 1.
func put(dst, s []float32, acc int) {
	if acc == 0 {
		copy(dst, s)
		return
	}
	for i, v := range s {
		dst[i] += v
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// addColumnTailF32 finishes columns m ≤ c < cols of every output in Go;
// when m == 0 no kernel ran and it computes the whole product.
func addColumnTailF32(out []float32, ldOut int, w, x []float32, n, cols, m int) {
	if m == cols {
		return
	}
	rows := len(w) / cols
	for t := range n {
		xt := x[t*cols+m : t*cols+cols]
		for r := range rows {
			s := dotGeneric(w[r*cols+m:r*cols+cols], xt)
			if m == 0 {
				out[t*ldOut+r] = s
			} else {
				out[t*ldOut+r] += s
			}
		}
	}
}

// addColumnTailBF16 is addColumnTailF32 for bf16 weights.
func addColumnTailBF16(out []float32, ldOut int, w []BF16, x []float32, n, cols, m int) {
	if m == cols {
		return
	}
	rows := len(w) / cols
	for t := range n {
		xt := x[t*cols+m : t*cols+cols]
		for r := range rows {
			s := dotBF16Generic(w[r*cols+m:r*cols+cols], xt)
			if m == 0 {
				out[t*ldOut+r] = s
			} else {
				out[t*ldOut+r] += s
			}
		}
	}
}
