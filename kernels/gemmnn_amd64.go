//go:build amd64 && !purego

package kernels

import "unsafe"

// Stubs in gemmnn_amd64.s (the reference loops are their doc comments
// there; gemmnn_amd64_test.go has them in Go).

// gemmNN32x12AVX512 computes the tile out[t·ldo+j] (+)= Σ_{c<k}
// x[t·ldx+c]·b[c·ldb+j] for t < 12, j < 32: each sum sequential in c with
// one FMA per term, from 0; accum != 0 adds the finished sum to out.
//
//go:noescape
func gemmNN32x12AVX512(out *float32, ldo int, b *float32, ldb int, x *float32, ldx int, k int, accum int)

// gemmNN32x11AVX512 … gemmNN32x4AVX512 are the same tile for t < 11 …
// t < 4, for the tokens left after the 12-token tiles; their sums are
// bit-identical to the 12-token tile's.
//
//go:noescape
func gemmNN32x11AVX512(out *float32, ldo int, b *float32, ldb int, x *float32, ldx int, k int, accum int)

//go:noescape
func gemmNN32x10AVX512(out *float32, ldo int, b *float32, ldb int, x *float32, ldx int, k int, accum int)

//go:noescape
func gemmNN32x9AVX512(out *float32, ldo int, b *float32, ldb int, x *float32, ldx int, k int, accum int)

//go:noescape
func gemmNN32x8AVX512(out *float32, ldo int, b *float32, ldb int, x *float32, ldx int, k int, accum int)

//go:noescape
func gemmNN32x7AVX512(out *float32, ldo int, b *float32, ldb int, x *float32, ldx int, k int, accum int)

//go:noescape
func gemmNN32x6AVX512(out *float32, ldo int, b *float32, ldb int, x *float32, ldx int, k int, accum int)

//go:noescape
func gemmNN32x5AVX512(out *float32, ldo int, b *float32, ldb int, x *float32, ldx int, k int, accum int)

//go:noescape
func gemmNN32x4AVX512(out *float32, ldo int, b *float32, ldb int, x *float32, ldx int, k int, accum int)

// gemmNN16x6AVX2 is the broadcast tile for AVX2 (16 registers): out[t·ldo+j]
// (+)= Σ_{c<k} x[t·ldx+c]·b[c·ldb+j] for t < 6, j < 16, the same sums.
//
//go:noescape
func gemmNN16x6AVX2(out *float32, ldo int, b *float32, ldb int, x *float32, ldx int, k int, accum int)

// packT16BF16AVX2 sets dst[c·16+j] = src[j·lds+c].Float32() for j < 16,
// c < k (k a multiple of 8): 16 rows of W become the AVX2 tile's B = Wᵀ.
//
//go:noescape
func packT16BF16AVX2(dst *float32, src *BF16, lds int, k int)

// packT16F32AVX2 is packT16BF16AVX2 for float32 rows.
//
//go:noescape
func packT16F32AVX2(dst *float32, src *float32, lds int, k int)

// packT32BF16AVX512 sets dst[c·32+j] = src[j·lds+c].Float32() for j < 32,
// c < k (k a multiple of 16): 32 rows of W become the kernel's B = Wᵀ.
//
//go:noescape
func packT32BF16AVX512(dst *float32, src *BF16, lds int, k int)

// packT32F32AVX512 is packT32BF16AVX512 for float32 rows.
//
//go:noescape
func packT32F32AVX512(dst *float32, src *float32, lds int, k int)

// Tile of the broadcast kernel: tokNN tokens × colNN outputs.
const (
	tokNN = 12
	colNN = 32
)

// nBcast is the fewest tokens for which the AVX-512 prefill packs W into
// 32-row panels and runs the broadcast tiles; fewer go through the 8×3
// dot-product tiles, which read W in place. BenchmarkMatMulPaths, bf16 W:
// at n = 12 the 8×3 path is ahead on 1536 × 1536 (W in L3: 169 against
// 157 GFLOP/s) but behind on 8960 × 1536 (W from DRAM: ~115 against 132);
// from n = 16 the broadcast path leads on both (1536²: 171 vs 165, 8960 ×
// 1536: 150 vs 128; n = 128: 243 vs 232 and 215 vs 203).
//
// nBcastF32 is nBcast for f32 weights, which the 8×3 path reads in place
// without widening and the packer reads at twice the bytes (medians of 5,
// GFLOP/s, 8×3 against broadcast): n = 16: 159 vs 121 on 1536 × 1536;
// n = 32 within ±5 % on 1536 × {256, 512, 1024, 1536} and 128 × 3139;
// n = 48: broadcast ahead or within 2 %; n = 64: ahead on all, by 2-9 %.
//
// kcNN is the column block: one packed panel (kcNN × 32 floats, 32 KiB)
// serves every token tile from L1. 256, 384, 512 and 768 measured within
// 1 % of each other at n = 128 and 512 over the four Qwen shapes (means
// 234, 234, 235, 236 GFLOP/s); at n = 64 on 8960 × 1536 256 was ahead
// (217 against 210-212).
const (
	nBcast    = 16
	nBcastF32 = 48
	kcNN      = 256
)

// tileNN runs the 32 × nt tile, 4 ≤ nt ≤ 12.
func tileNN(nt int, out *float32, ldo int, b *float32, ldb int, x *float32, ldx, k, acc int) {
	switch nt {
	case 12:
		gemmNN32x12AVX512(out, ldo, b, ldb, x, ldx, k, acc)
	case 11:
		gemmNN32x11AVX512(out, ldo, b, ldb, x, ldx, k, acc)
	case 10:
		gemmNN32x10AVX512(out, ldo, b, ldb, x, ldx, k, acc)
	case 9:
		gemmNN32x9AVX512(out, ldo, b, ldb, x, ldx, k, acc)
	case 8:
		gemmNN32x8AVX512(out, ldo, b, ldb, x, ldx, k, acc)
	case 7:
		gemmNN32x7AVX512(out, ldo, b, ldb, x, ldx, k, acc)
	case 6:
		gemmNN32x6AVX512(out, ldo, b, ldb, x, ldx, k, acc)
	case 5:
		gemmNN32x5AVX512(out, ldo, b, ldb, x, ldx, k, acc)
	default:
		gemmNN32x4AVX512(out, ldo, b, ldb, x, ldx, k, acc)
	}
}

// rowsAhead are rows of W to prefetch while tiles run: rows (a multiple of
// 4) rows of n bytes from p, ld bytes apart. The zero value is none.
type rowsAhead struct {
	p           unsafe.Pointer
	ld, n, rows int
}

// nextPanel describes rows r..r+31 of w (row stride cols), columns
// k0..k0+k, clipped to the rows that exist, in whole groups of four.
func nextPanel[E BF16 | float32](w []E, r, rows, cols, k0, k int) rowsAhead {
	return nextRows(w, r, colNN, rows, cols, k0, k)
}

// nextRows is nextPanel for a panel of h rows.
func nextRows[E BF16 | float32](w []E, r, h, rows, cols, k0, k int) rowsAhead {
	var e E
	size := int(unsafe.Sizeof(e))
	cnt := (min(r+h, rows) - r) &^ 3
	if cnt <= 0 {
		return rowsAhead{}
	}
	return rowsAhead{unsafe.Pointer(&w[r*cols+k0]), cols * size, k * size, cnt}
}

// tilesNN runs the broadcast tiles over n tokens against one B panel (k ×
// 32 at b, row stride ldb; x already offset to the column block):
// out[t·ldOut+j] (+)= Σ_c x[t·ldx+c]·b[c·ldb+j] for t < n, j < jn ≤ 32.
// x holds at least max(n, 12) rows. Tiles of 12 tokens, then one of as
// many tokens as are left (4 to 11), write out in place; fewer than 4
// left (and every tile when jn < 32) go through a scratch tile whose rows
// overlap the previous tile (at most 3 recomputed tokens), and put adds
// the rows needed, bit-identically. Measured on 1536 × 1536 at n = 64 (4
// left over) and 128 (8 left): re-running a whole 12-token tile for the
// leftovers instead cost 12 % and 3 % of the time. With tiles of 4 and 8
// only, a 17-token prompt ran 20 token rows through the tiles (12 + an
// overlapping 8); the 5-token tile makes it 17. Zen 4, one thread, bf16
// W, 3 interleaved rounds, GFLOP/s medians: n = 17 on 8960 × 1536 63.5 →
// 73.6, 1536 × 8960 62.3 → 75.0, 1536 × 1536 64.7 → 78.8; n = 23 (11
// left) 74.0 → 80.6, 72.1 → 80.3, 70.0 → 79.0.
//
// Before each tile, a share of the next panel's rows is prefetched: the
// same prefetches issued all at once before packing (256 lines at kcNN =
// 256) cost 3-5 % at n = 64..128 on 8960 × 1536, the weights coming from
// DRAM.
func tilesNN(out []float32, ldOut int, b *float32, ldb int, x []float32, ldx, n, jn, k, acc int, next rowsAhead) {
	var tile [tokNN * colNN]float32
	tiles, groups, done := (n+tokNN-1)/tokNN, next.rows/4, 0
	for i, t := 1, 0; t < n; i++ {
		for ; done < groups && done*tiles < i*groups; done++ {
			prefetch4(unsafe.Add(next.p, 4*done*next.ld), next.ld, next.n)
		}
		nt := min(tokNN, max(4, n-t))
		if jn == colNN && t+nt <= n {
			tileNN(nt, &out[t*ldOut], ldOut, b, ldb, &x[t*ldx], ldx, k, acc)
			t += nt
			continue
		}
		t0 := max(0, min(t, n-nt))
		tileNN(nt, &tile[0], colNN, b, ldb, &x[t0*ldx], ldx, k, 0)
		for ; t < min(t0+nt, n); t++ {
			put(out[t*ldOut:t*ldOut+jn], tile[(t-t0)*colNN:(t-t0)*colNN+jn], acc)
		}
	}
	for ; done < groups; done++ {
		prefetch4(unsafe.Add(next.p, 4*done*next.ld), next.ld, next.n)
	}
}

// matMulNNAVX512 is MatMulNN on the broadcast tiles, over 32-column panels
// of B read in place; a last partial panel is copied with zero columns
// into a [k][32] scratch, and fewer than 12 tokens into a zero-padded
// [12][k] one.
func matMulNNAVX512(out []float32, ldOut int, x []float32, ldx int, b []float32, ldb int, n, k, m int) {
	ws := workspaces.Get().(*Workspace)
	if n < tokNN {
		xp := grow(&ws.rf, tokNN*k)
		for t := range tokNN {
			if t < n {
				copy(xp[t*k:t*k+k], x[t*ldx:t*ldx+k])
			} else {
				clear(xp[t*k : t*k+k])
			}
		}
		x, ldx = xp, k
	}
	for j := 0; j < m; j += colNN {
		jn := min(colNN, m-j)
		bp, ldbp := &b[j], ldb
		if jn < colNN {
			pk := ws.panel(k * colNN)
			for c := range k {
				copy(pk[c*colNN:c*colNN+jn], b[c*ldb+j:c*ldb+m])
				clear(pk[c*colNN+jn : c*colNN+colNN])
			}
			bp, ldbp = &pk[0], colNN
		}
		tilesNN(out[j:], ldOut, bp, ldbp, x, ldx, n, jn, k, 0, rowsAhead{})
	}
	workspaces.Put(ws)
}

// Tile of the AVX2 broadcast kernel: tok2 tokens × col2 outputs.
const (
	tok2 = 6
	col2 = 16
)

// matMulNNAVX2 is matMulNNAVX512 on the 16 × 6 AVX2 tile: 16-column
// panels of B in place (a partial last one copied with zero columns into
// a [k][16] scratch), tiles of 6 tokens, the last one overlapping the one
// before through a scratch tile (fewer than 6 tokens: x copied into a
// zero-padded [6][k] scratch). Rows of Axpy (out[t] += x[t][c]·B[c] for
// each c) ran at 28-38 GFLOP/s on attention's shapes, against 108-117 for
// MatMulF32 on the transposed operands; this tile, BenchmarkMatMulNN.
func matMulNNAVX2(out []float32, ldOut int, x []float32, ldx int, b []float32, ldb int, n, k, m int) {
	ws := workspaces.Get().(*Workspace)
	if n < tok2 {
		xp := grow(&ws.rf, tok2*k)
		for t := range tok2 {
			if t < n {
				copy(xp[t*k:t*k+k], x[t*ldx:t*ldx+k])
			} else {
				clear(xp[t*k : t*k+k])
			}
		}
		x, ldx = xp, k
	}
	var tile [tok2 * col2]float32
	for j := 0; j < m; j += col2 {
		jn := min(col2, m-j)
		bp, ldbp := &b[j], ldb
		if jn < col2 {
			pk := ws.panel(k * col2)
			for c := range k {
				copy(pk[c*col2:c*col2+jn], b[c*ldb+j:c*ldb+m])
				clear(pk[c*col2+jn : c*col2+col2])
			}
			bp, ldbp = &pk[0], col2
		}
		for t := 0; t < n; {
			if jn == col2 && t+tok2 <= n {
				gemmNN16x6AVX2(&out[t*ldOut+j], ldOut, bp, ldbp, &x[t*ldx], ldx, k, 0)
				t += tok2
				continue
			}
			t0 := max(0, min(t, n-tok2))
			gemmNN16x6AVX2(&tile[0], col2, bp, ldbp, &x[t0*ldx], ldx, k, 0)
			for ; t < min(t0+tok2, n); t++ {
				copy(out[t*ldOut+j:t*ldOut+j+jn], tile[(t-t0)*col2:(t-t0)*col2+jn])
			}
		}
	}
	workspaces.Put(ws)
}

// matMulBcast is the AVX-512 prefill Y = X·Wᵀ for n ≥ nBcast tokens: each
// 32-row panel of W is packed, one column block of kcNN at a time (widened
// and transposed) into the workspace as B = Wᵀ (kcNN × 32), then the tiles
// run over all n tokens with it while the next block is prefetched; the
// first column block stores, later ones add. A last panel of fewer than
// 32 rows is packed from a zero-padded copy and its tiles go through
// scratch, so an output's sum does not depend on where a worker's band of
// rows starts or ends. Columns past the last multiple of 16 are added in
// Go.
//
// The order of the blocks follows the size of x. When x (n × m floats)
// fits in half the core's L2 (panelsFirst), each panel runs through all
// its column blocks before the next: W is read row by row, 32 streams of
// whole rows, and x stays in L2. Otherwise every panel runs one column
// block before the next block: x's block (n × kcNN) stays in L2 instead,
// and W is read in pieces of 512 bytes a row, in bands of rows whose out
// stays in L2 (matMulBands, as at AVX2: 8960 × 1536 at n = 512 ran at
// 145 GFLOP/s in bands, 132 with one band of all rows; the other Qwen
// shapes within 2 %). Each output's sum takes its column blocks in the
// same order either way, so the orders agree bit for bit. Intel Xeon VM,
// bf16 W streamed from DRAM, one thread, panels first against blocks
// first (medians of 10 alternating rounds): 8960 × 1536
// 1.31 at n = 17, 1.26 at 32, 1.38 at 64, 1.26 at 128 (x 0.1-0.8 MB);
// 1536 × 1536 1.15 at 17, 1.05 at 128; 1536 × 8960 1.28 at 17 (x 0.6 MB),
// 1.18 at 32 (1.1 MB), 0.91 at 64 and 128 (x 2.3 and 4.6 MB, past its
// 2 MiB L2).
func matMulBcast[E BF16 | float32](ws *Workspace, out []float32, ldOut int, w []E, x []float32, n, cols int) {
	rows := len(w) / cols
	m := cols &^ 15
	pk := ws.panel(kcNN * colNN)
	block := func(r, k0 int, next rowsAhead) {
		jn, k := min(colNN, rows-r), min(kcNN, m-k0)
		packPanel(ws, pk, w[r*cols:], jn, cols, k0, k)
		tilesNN(out[r:], ldOut, &pk[0], colNN, x[k0:], cols, n, jn, k, boolInt(k0 > 0), next)
	}
	if !panelsFirst(n, m) {
		matMulBands(tile32x12, ws, out, ldOut, w, x, n, cols)
		return
	}
	for r := 0; r < rows; r += colNN {
		for k0 := 0; k0 < m; k0 += kcNN {
			next := nextPanel(w, r+colNN, rows, cols, 0, min(kcNN, m)) // after the last block
			if k0+kcNN < m {
				next = nextPanel(w, r, rows, cols, k0+kcNN, min(kcNN, m-k0-kcNN))
			}
			block(r, k0, next)
		}
	}
	switch w := any(w).(type) {
	case []BF16:
		addColumnTailBF16(out, ldOut, w, x, n, cols, m)
	case []float32:
		addColumnTailF32(out, ldOut, w, x, n, cols, m)
	}
}

// xInL2 is the most bytes of x for which the prefill paths (matMulBcast,
// matMulBF16By) run W's panels first: half of one core's L2 (cpuid; 1 MiB
// assumed when it does not say), leaving the rest to W's panels and the
// outputs. A variable so the tests can run both orders.
var xInL2 = l2Bytes() / 2

// panelsFirst says whether a prefill keeps x (n tokens × m columns) in L2
// and reads W panel by panel, each through all its column blocks.
func panelsFirst(n, m int) bool { return 4*n*m <= xInL2 }

// padPanel is what a packer of width rows reads: w from column k0 (row
// stride cols) when the panel is whole (jn = width), else rows j < jn
// copied into a [width][k] scratch whose rows jn… are zero (stride k).
func padPanel[E BF16 | float32](ws *Workspace, w []E, jn, width, cols, k0, k int) ([]E, int) {
	if jn >= width {
		return w[k0:], cols
	}
	var pad []E
	switch p := any(&pad).(type) {
	case *[]BF16:
		*p = grow(&ws.rb, width*k)
	case *[]float32:
		*p = grow(&ws.rf, width*k)
	}
	for j := range width {
		if j < jn {
			copy(pad[j*k:j*k+k], w[j*cols+k0:])
		} else {
			clear(pad[j*k : j*k+k])
		}
	}
	return pad, k
}

// packPanel packs rows j < jn of w (row stride cols), columns k0..k0+k,
// into pk as pk[c·32+j], with zeros for jn ≤ j < 32: a partial panel is
// first copied into a [32][k] scratch whose missing rows are zero.
func packPanel[E BF16 | float32](ws *Workspace, pk []float32, w []E, jn, cols, k0, k int) {
	src, lds := padPanel(ws, w, jn, colNN, cols, k0, k)
	switch s := any(src).(type) {
	case []BF16:
		packT32BF16AVX512(&pk[0], &s[0], lds, k)
	case []float32:
		packT32F32AVX512(&pk[0], &s[0], lds, k)
	}
}
