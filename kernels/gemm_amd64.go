//go:build amd64 && !purego

package kernels

import "unsafe"

// Stubs in gemm_amd64.s. A micro-kernel computes the tile
// out[t·ldo+r] (+)= Σ_{c<k} w[r·ldw+c]·x[t·ldx+c] for r < 4, t < T
// (T = 3 for AVX2, 6 for AVX-512), k a multiple of the step (8, 16, 32);
// gemm8x3F32AVX512 and gemm8x3BF16DP do r < 8, t < 3, for tiles ≥ 1
// consecutive tiles of 3 tokens.

//go:noescape
func gemm4x3F32AVX2(out *float32, ldo int, w *float32, ldw int, x *float32, ldx int, k int, accum int)

//go:noescape
func gemm4x6F32AVX512(out *float32, ldo int, w *float32, ldw int, x *float32, ldx int, k int, accum int)

//go:noescape
func gemm8x3F32AVX512(out *float32, ldo int, w *float32, ldw int, x *float32, ldx int, k int, accum int, tiles int)

//go:noescape
func gemm8x3BF16DP(out *float32, ldo int, w *BF16, ldw int, x *BF16, ldx int, k int, accum int, tiles int)

// widen (in gemv_amd64.s, beside gemv's widening kernels): dst[i] =
// src[i].Float32(), n a multiple of 8 / 16.
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

// prefetchRows hints rows [from, from+count) ∩ [0, rows) of w, columns
// k0..k0+k, in groups of four: the weight panel after the current one.
func prefetchRows[E BF16 | float32](w []E, from, count, rows, cols, k0, k int) {
	var e E
	size := int(unsafe.Sizeof(e))
	for r := from; r+4 <= min(from+count, rows); r += 4 {
		prefetch4(unsafe.Pointer(&w[r*cols+k0]), cols*size, k*size)
	}
}

// tok is the number of tokens in a micro tile.
func (v isa) tok() int {
	if v == isaAVX512 {
		return 6
	}
	return 3
}

func (v isa) micro(out *float32, ldo int, w *float32, ldw int, x *float32, ldx int, k int, accum int) {
	if v == isaAVX512 {
		gemm4x6F32AVX512(out, ldo, w, ldw, x, ldx, k, accum)
	} else {
		gemm4x3F32AVX2(out, ldo, w, ldw, x, ldx, k, accum)
	}
}

func (v isa) widen(dst *float32, src *BF16, n int) {
	if v == isaAVX512 {
		widenAVX512(dst, src, n)
	} else {
		widenAVX2(dst, src, n)
	}
}

// kc is the column block. One 8-row panel of W (8·kc floats, 16 KiB) stays
// in L1 while every token of the block (n·kc floats, 256 KiB at n = 128)
// streams from L2. Measured at n = 128 on Qwen shapes: 1024 the same
// within noise, 256 and 768 about 5 % slower.
const kc = 512

// matMulF32AVX2 and matMulBF16AVX2 choose between the 4×3 dot tiles and
// the broadcast tiles (bcast2_amd64.go) on n alone, as the AVX-512 ones.
func matMulF32AVX2(out []float32, ldOut int, w, x []float32, n, cols int) {
	if n < nBcast2F32 {
		matMulF32By(isaAVX2, out, ldOut, w, x, n, cols)
		return
	}
	ws := workspaces.Get().(*Workspace)
	matMulBcastAVX2(ws, out, ldOut, w, x, n, cols)
	workspaces.Put(ws)
}

// matMulF32AVX512 and matMulBF16AVX512 choose between the 8×3 tiles and
// the broadcast tiles (gemmnn_amd64.go) on n alone, so every band of rows
// of one product takes the same path.
func matMulF32AVX512(out []float32, ldOut int, w, x []float32, n, cols int) {
	if n < nBcastF32 {
		matMulF32By(isaAVX512, out, ldOut, w, x, n, cols)
		return
	}
	ws := workspaces.Get().(*Workspace)
	matMulBcast(ws, out, ldOut, w, x, n, cols)
	workspaces.Put(ws)
}

func matMulBF16AVX2(ws *Workspace, out []float32, ldOut int, w []BF16, x []float32, n, cols int) {
	if n < nBcast2 {
		matMulBF16By(isaAVX2, ws, out, ldOut, w, x, n, cols)
		return
	}
	matMulBcastAVX2(ws, out, ldOut, w, x, n, cols)
}

func matMulBF16AVX512(ws *Workspace, out []float32, ldOut int, w []BF16, x []float32, n, cols int) {
	if n < nBcast {
		matMulBF16By(isaAVX512, ws, out, ldOut, w, x, n, cols)
		return
	}
	matMulBcast(ws, out, ldOut, w, x, n, cols)
}

// matMulF32By walks column blocks of kc, then panels of W (8 rows with the
// AVX-512 8×3 tile, then 4 rows with the 4×T tile), then token tiles; the
// first column block stores, later ones accumulate. Rows left after the
// last panel go through the 4-row gemv one at a time; columns past the
// last whole vector go through Go. While a panel computes, the next one is
// prefetched: its rows lie far apart, beyond the hardware prefetcher.
func matMulF32By(v isa, out []float32, ldOut int, w, x []float32, n, cols int) {
	rows := len(w) / cols
	m := cols &^ (v.step() - 1)
	for k0 := 0; k0 < m; k0 += kc {
		k, acc := min(kc, m-k0), boolInt(k0 > 0)
		r := 0
		for ; v == isaAVX512 && r+8 <= rows; r += 8 {
			prefetchRows(w, r+8, 8, rows, cols, k0, k)
			panel8F32(out, ldOut, r, &w[r*cols+k0], cols, x[k0:], cols, n, k, acc)
		}
		for ; r+4 <= rows; r += 4 {
			prefetchRows(w, r+4, 4, rows, cols, k0, k)
			panelF32(v, out, ldOut, r, &w[r*cols+k0], cols, x[k0:], cols, n, k, acc)
		}
		for ; r < rows; r++ {
			rowF32(v, out, ldOut, r, x[k0:], cols, n, k, acc, func(q *[4]float32, xt *float32) {
				v.gemv4F32(&q[0], &w[r*cols+k0], 0, xt, k)
			})
		}
	}
	addColumnTailF32(out, ldOut, w, x, n, cols, m)
}

// panelF32 computes one 4-row panel wp (row stride ldw) against all n
// tokens of x (row stride ldx, already offset to the column block). Tokens
// left after the last full tile are done by re-running the last full tile
// into a scratch tile (about tok/2 tokens recomputed at full speed instead
// of up to tok-1 through the latency-bound gemv: 6 % of the work at
// n = 64); with fewer tokens than a tile, by the gemv.
func panelF32(v isa, out []float32, ldOut, r int, wp *float32, ldw int, x []float32, ldx, n, k, acc int) {
	tok := v.tok()
	t := 0
	for ; t+tok <= n; t += tok {
		v.micro(&out[t*ldOut+r], ldOut, wp, ldw, &x[t*ldx], ldx, k, acc)
	}
	if t < n && n >= tok {
		var tile [6 * 4]float32
		t0 := n - tok
		v.micro(&tile[0], 4, wp, ldw, &x[t0*ldx], ldx, k, 0)
		for ; t < n; t++ {
			put(out[t*ldOut+r:t*ldOut+r+4], tile[(t-t0)*4:(t-t0)*4+4], acc)
		}
	}
	var quad [4]float32
	for ; t < n; t++ {
		v.gemv4F32(&quad[0], wp, ldw, &x[t*ldx], k)
		put(out[t*ldOut+r:t*ldOut+r+4], quad[:], acc)
	}
}

// panel8F32 is panelF32 for an 8-row panel and the AVX-512 8 × 3 tile
// (rows r..r+7). With fewer than 3 tokens it runs the 4-row gemv twice per
// token; its sums are bit-identical to the tile's.
func panel8F32(out []float32, ldOut, r int, wp *float32, ldw int, x []float32, ldx, n, k, acc int) {
	const tok = 3
	t := n / tok * tok
	if t > 0 {
		gemm8x3F32AVX512(&out[r], ldOut, wp, ldw, &x[0], ldx, k, acc, n/tok)
	}
	if t < n && n >= tok {
		var tile [tok * 8]float32
		t0 := n - tok
		gemm8x3F32AVX512(&tile[0], 8, wp, ldw, &x[t0*ldx], ldx, k, 0, 1)
		for ; t < n; t++ {
			put(out[t*ldOut+r:t*ldOut+r+8], tile[(t-t0)*8:(t-t0)*8+8], acc)
		}
	}
	var quad [4]float32
	for ; t < n; t++ {
		for h := 0; h < 8; h += 4 {
			gemv4F32AVX512(&quad[0], (*float32)(unsafe.Add(unsafe.Pointer(wp), 4*h*ldw)), ldw, &x[t*ldx], k)
			put(out[t*ldOut+r+h:t*ldOut+r+h+4], quad[:], acc)
		}
	}
}

// matMulBF16By is matMulF32By with each panel of W (8 or 4 rows × k)
// widened to fp32 into the workspace first (once, then reused by every
// token tile), so the tiles' inner loops are pure FMA. The panels and the
// column blocks run in matMulBcast's order (panelsFirst): panels first
// when x fits in half of L2, which short prompts' x does, and the same
// sums either way.
func matMulBF16By(v isa, ws *Workspace, out []float32, ldOut int, w []BF16, x []float32, n, cols int) {
	rows := len(w) / cols
	m := cols &^ (v.step() - 1)
	panel := ws.panel(8 * kc)
	// rowsBlock runs rows r..r+h of w (h = 8, 4 or 1) over the column block at k0.
	rowsBlock := func(r, h, k0 int) {
		k, acc := min(kc, m-k0), boolInt(k0 > 0)
		if h == 1 {
			rowF32(v, out, ldOut, r, x[k0:], cols, n, k, acc, func(q *[4]float32, xt *float32) {
				v.gemv4BF16(&q[0], &w[r*cols+k0], 0, xt, k)
			})
			return
		}
		for i := range h {
			v.widen(&panel[i*k], &w[(r+i)*cols+k0], k)
		}
		if h == 8 {
			panel8F32(out, ldOut, r, &panel[0], k, x[k0:], cols, n, k, acc)
		} else {
			panelF32(v, out, ldOut, r, &panel[0], k, x[k0:], cols, n, k, acc)
		}
	}
	if panelsFirst(n, m) {
		for r, h := 0, 0; r < rows; r += h {
			h = v.rowsAt(r, rows)
			for k0 := 0; k0 < m; k0 += kc {
				nr, nk := r, k0+kc // the block after this one
				if nk >= m {
					nr, nk = r+h, 0
				}
				prefetchRows(w, nr, v.rowsAt(nr, rows), rows, cols, nk, min(kc, m-nk))
				rowsBlock(r, h, k0)
			}
		}
	} else {
		for k0 := 0; k0 < m; k0 += kc {
			for r, h := 0, 0; r < rows; r += h {
				h = v.rowsAt(r, rows)
				prefetchRows(w, r+h, h, rows, cols, k0, min(kc, m-k0))
				rowsBlock(r, h, k0)
			}
		}
	}
	addColumnTailBF16(out, ldOut, w, x, n, cols, m)
}

// rowsAt is the height of the group of rows of W starting at r that the
// tiles take: 8 at AVX-512, else 4, and the last rows one by one.
func (v isa) rowsAt(r, rows int) int {
	switch {
	case v == isaAVX512 && r+8 <= rows:
		return 8
	case r+4 <= rows:
		return 4
	}
	return 1
}

// rowF32 finishes one leftover row r for all tokens with dot, which fills
// q[0] (a 4-row gemv with row stride 0). Leftover rows are rare (none in
// Qwen2 shapes), so the function value costs nothing that matters.
func rowF32(v isa, out []float32, ldOut, r int, x []float32, ldx, n, k, acc int, dot func(q *[4]float32, xt *float32)) {
	q := new([4]float32)
	for t := range n {
		dot(q, &x[t*ldx])
		put(out[t*ldOut+r:t*ldOut+r+1], q[:1], acc)
	}
}

// matMulBF16DotBF16 is the AVX512_BF16 prefill: x is rounded to bf16 once
// per call into the workspace, then VDPBF16PS tiles read W in place (no
// widening). With fewer tokens than a tile (decode-sized calls) it keeps x
// exact and uses the AVX-512 widening path; the choice depends on n only,
// never on the band of rows, so bands agree bit for bit.
func matMulBF16DotBF16(ws *Workspace, out []float32, ldOut int, w []BF16, x []float32, n, cols int) {
	const step, tok = 32, 3
	m := cols &^ (step - 1)
	if n < tok || m == 0 {
		matMulBF16By(isaAVX512, ws, out, ldOut, w, x, n, cols)
		return
	}
	xb := ws.bf16X(n * cols)
	roundBF16(xb, x)
	matMulBF16DotBF16X(ws, out, ldOut, w, x, xb, n, cols)
}

// matMulBF16DotBF16X is matMulBF16DotBF16 with x already rounded into xb
// (n × cols, RoundedX): the workers' bands of one product share one
// rounding instead of each rounding all of x again.
func matMulBF16DotBF16X(ws *Workspace, out []float32, ldOut int, w []BF16, x []float32, xb []BF16, n, cols int) {
	const step, tok = 32, 3
	m := cols &^ (step - 1)
	if n < tok || m == 0 {
		matMulBF16By(isaAVX512, ws, out, ldOut, w, x, n, cols)
		return
	}
	rows := len(w) / cols
	for k0 := 0; k0 < m; k0 += kcDP {
		k, acc := min(kcDP, m-k0), boolInt(k0 > 0)
		r := 0
		for ; r+8 <= rows; r += 8 {
			prefetchRows(w, r+8, 8, rows, cols, k0, k)
			panelDP(out, ldOut, r, &w[r*cols+k0], cols, xb[k0:], cols, n, k, acc)
		}
		for ; r < rows; r++ {
			rowDP(out, ldOut, r, &w[r*cols+k0], xb[k0:], cols, n, k, acc)
		}
	}
	addColumnTailBF16(out, ldOut, w, x, n, cols, m)
}

// panelDP runs the 8 × 3 VDPBF16PS tile over all n ≥ 3 tokens of xb (row
// stride ldx, offset to the column block) for rows r..r+7; the leftover
// tokens re-run the last full tile into a scratch tile.
func panelDP(out []float32, ldOut, r int, wp *BF16, ldw int, xb []BF16, ldx, n, k, acc int) {
	const tok = 3
	t := n / tok * tok
	gemm8x3BF16DP(&out[r], ldOut, wp, ldw, &xb[0], ldx, k, acc, n/tok)
	if t < n {
		var tile [tok * 8]float32
		t0 := n - tok
		gemm8x3BF16DP(&tile[0], 8, wp, ldw, &xb[t0*ldx], ldx, k, 0, 1)
		for ; t < n; t++ {
			put(out[t*ldOut+r:t*ldOut+r+8], tile[(t-t0)*8:(t-t0)*8+8], acc)
		}
	}
}

// rowDP computes a leftover row r with the same instructions a full panel
// would use (the tile with row stride 0, column 0 kept), so an output does
// not depend on where a worker's band of rows starts.
func rowDP(out []float32, ldOut, r int, wr *BF16, xb []BF16, ldx, n, k, acc int) {
	const tok = 3
	var tile [tok * 8]float32
	for t := 0; t < n; {
		t0 := min(t, n-tok) // the last tile overlaps the one before
		gemm8x3BF16DP(&tile[0], 8, wr, 0, &xb[t0*ldx], ldx, k, 0, 1)
		for ; t < t0+tok; t++ {
			put(out[t*ldOut+r:t*ldOut+r+1], tile[8*(t-t0):8*(t-t0)+1], acc)
		}
	}
}

// kcDP is kc for the bf16 tiles: a panel is half the bytes per column and
// has no widened copy. Measured with the 4×6 tile: 2048 about 4 % faster
// than 1024.
const kcDP = 2048

// roundRowsBF16 is roundBF16 for RoundedX.Round.
func roundRowsBF16(xb []BF16, x []float32) { roundBF16(xb, x) }

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
