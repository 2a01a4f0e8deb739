//go:build amd64 && !purego

package kernels

import "unsafe"

// The AVX2 prefill on the broadcast tile: W packed in 16-row panels (Wᵀ,
// kcNN × 16 floats, 16 KiB, in L1), x broadcast from 6 token rows. The
// dot-product tiles (gemm4x3F32AVX2) read 3 token rows of x per 12 FMAs
// and sum each output across a register at the end; here x is read once
// per 12 FMAs as a broadcast and the sums need no reduction. Alone in L1,
// one thread, Xeon: 4x3 dot tile 83-100 GFLOP/s (93-97 with x from L2),
// 16x6 broadcast tile 110-112, the FMA loop 109-112 (a loaded machine:
// best of three).

// gemm16x6AVX2 (gemm16_amd64.s) is gemmNN16x6AVX2 on a packed panel b
// (ldb = 16) with k a multiple of 8: the same sums, bit for bit, with x's
// rows and out's prefetched.
//
//go:noescape
func gemm16x6AVX2(out *float32, ldo int, b *float32, x *float32, ldx int, k int, accum int)

// gemm16x5AVX2 and gemm16x4AVX2 are gemm16x6AVX2 for t < 5 and t < 4:
// the tokens left after the 6-token tiles, the same sums bit for bit.
//
//go:noescape
func gemm16x5AVX2(out *float32, ldo int, b *float32, x *float32, ldx int, k int, accum int)

//go:noescape
func gemm16x4AVX2(out *float32, ldo int, b *float32, x *float32, ldx int, k int, accum int)

// tile16 runs the 16 × nt tile on a packed panel, 4 ≤ nt ≤ 6.
func tile16(nt int, out *float32, ldo int, b *float32, x *float32, ldx int, k int, accum int) {
	switch nt {
	case 6:
		gemm16x6AVX2(out, ldo, b, x, ldx, k, accum)
	case 5:
		gemm16x5AVX2(out, ldo, b, x, ldx, k, accum)
	default:
		gemm16x4AVX2(out, ldo, b, x, ldx, k, accum)
	}
}

// nBcast2 is the fewest tokens for which the AVX2 prefill of bf16 weights
// packs W and runs the broadcast tiles; nBcast2F32 the same for f32
// weights, which the dot tiles read in place without widening. The
// AVX-512 thresholds (nBcast, nBcastF32), as timings on a shared machine
// could not tell AVX2's apart.
const (
	nBcast2    = nBcast
	nBcast2F32 = nBcastF32
)

// matMulBcastAVX2 is matMulBcast on the AVX2 16 × 6 tile: for each 16-row
// panel of W and column block of kcNN, the panel is packed (pk[c·16+j] =
// W[r+j][k0+c]) and every token tile runs against it; the first column
// block stores, later ones add. Columns past the last multiple of 8 are
// added by Go (addColumnTail*). Needs n ≥ tok2.
//
// The rows go in bands of bandRows(n, m, 16) (a multiple of 16), each band
// through all its column blocks before the next, and in a band every
// panel runs one column block before the next block: x's block (n ×
// kcNN) stays in L2 across the band's panels and so does the band's out
// (n × band floats, a quarter of L2), which every column block reads and
// writes again. With one band for all rows out was 3-18 MB at n = 512 on
// the Qwen shapes, read from L3 by every block: 1536 × 1536 ran at 88
// GFLOP/s where 256 × 1536, whose out fits in L2, ran at 98. A band of 16
// rows is matMulBcast's panels-first order. Each output's sum takes its
// column blocks in the same order whatever the band, bit for bit.
func matMulBcastAVX2[E BF16 | float32](ws *Workspace, out []float32, ldOut int, w []E, x []float32, n, cols int) {
	matMulBands(tile16x6, ws, out, ldOut, w, x, n, cols)
}

// matMulBands is matMulBcastAVX2 on tile t: W's panels of t.width rows
// packed block by block, the bands of rows, then the columns past the
// last multiple of t.step added in Go.
func matMulBands[E BF16 | float32](t bandTile, ws *Workspace, out []float32, ldOut int, w []E, x []float32, n, cols int) {
	rows := len(w) / cols
	m := cols &^ (t.step - 1)
	pack := func(pk []float32, r, k0, k int) {
		src, lds := padPanel(ws, w[r*cols:], min(t.width, rows-r), t.width, cols, k0, k)
		switch s := any(src).(type) {
		case []BF16:
			t.packBF16(&pk[0], &s[0], lds, k)
		case []float32:
			t.packF32(&pk[0], &s[0], lds, k)
		}
	}
	ahead := func(r, lim, k0, k int) rowsAhead { return nextRows(w, r, t.width, lim, cols, k0, k) }
	bands(t, ws, out, ldOut, rows, m, x, n, cols, pack, ahead)
	switch w := any(w).(type) {
	case []BF16:
		addColumnTailBF16(out, ldOut, w, x, n, cols, m)
	case []float32:
		addColumnTailF32(out, ldOut, w, x, n, cols, m)
	}
}

// A bandTile is a broadcast tile as the bands run it: panels of width
// rows of W packed as pk[c·width+j] (packF32, packBF16: width rows, lds
// apart, k columns, k a multiple of step), and tiles, which runs a
// panel's tiles over n tokens (out[t·ldOut+j] (+)= Σ_c
// x[t·ldx+c]·pk[c·width+j], j < jn).
type bandTile struct {
	width, step int
	packF32     func(dst *float32, src *float32, lds int, k int)
	packBF16    func(dst *float32, src *BF16, lds int, k int)
	tiles       func(out []float32, ldOut int, pk, x []float32, ldx, n, jn, k, acc int, next rowsAhead)
}

// The AVX2 tile (16 rows × 6 tokens) and the AVX-512 one (32 × 12).
var (
	tile16x6  = bandTile{col2, 8, packT16F32AVX2, packT16BF16AVX2, tiles16}
	tile32x12 = bandTile{colNN, 16, packT32F32AVX512, packT32BF16AVX512, tiles32}
)

// tiles32 is tilesNN on a packed 32-row panel, in tiles16's form.
func tiles32(out []float32, ldOut int, pk, x []float32, ldx, n, jn, k, acc int, next rowsAhead) {
	tilesNN(out, ldOut, &pk[0], colNN, x, ldx, n, jn, k, acc, next)
}

// bands runs matMulBcastAVX2's loops over rows × m columns of W (m a
// multiple of 8, of 16 for the AVX-512 tile) and x (n × ldx) on tile t:
// pack fills pk with panel r's column block k0..k0+k (pk[c·w+j] =
// W[r+j][k0+c] for the tile's width w, zeros past the last row), ahead
// describes the rows of W from r (before lim) to prefetch.
//
// A band's sums build up in a scratch of n rows of band + w floats
// (ws.ob) and are copied to out once the band is done. out's rows lie
// rows floats apart: at 1536 (6 KB) the rows of 512 tokens fall on half
// of L2's sets, 8 lines a set, which x's rows (as many, as far apart)
// fill up to the 16 ways. The tile alone over a band's 256 columns and
// 510 tokens, Xeon, GFLOP/s: out rows 1536 floats apart 86-87, 8960
// apart 91-92, 256 apart 99-102, 1088 apart 94-100.
func bands(t bandTile, ws *Workspace, out []float32, ldOut, rows, m int, x []float32, n, ldx int,
	pack func(pk []float32, r, k0, k int), ahead func(r, lim, k0, k int) rowsAhead) {
	wd := t.width
	pk := ws.panel(kcNN * wd)
	band := min(bandRows(n, m, wd), (rows+wd-1)/wd*wd)
	ldb := band + wd
	ob := grow(&ws.ob, n*ldb)
	for r0 := 0; r0 < rows; r0 += band {
		r1 := min(rows, r0+band)
		for k0 := 0; k0 < m; k0 += kcNN {
			k := min(kcNN, m-k0)
			for r := r0; r < r1; r += wd {
				next := ahead(r+wd, r1, k0, k) // this block's next panel
				if r+wd >= r1 && k0+kcNN < m {
					next = ahead(r0, r1, k0+kcNN, min(kcNN, m-k0-kcNN))
				} else if r+wd >= r1 {
					next = ahead(r1, rows, 0, min(kcNN, m))
				}
				pack(pk, r, k0, k)
				t.tiles(ob[r-r0:], ldb, pk, x[k0:], ldx, n, min(wd, rows-r), k, boolInt(k0 > 0), next)
			}
		}
		for t := range n {
			copy(out[t*ldOut+r0:t*ldOut+r1], ob[t*ldb:t*ldb+r1-r0])
		}
	}
}

// matMulQAVX2 is MatMulQ at AVX2: from nBcast2F32 tokens, matMulBcastAVX2
// with each panel's column block widened from W's blocks (kcNN columns:
// one K-quant super-block, eight Q8_0 blocks a row) into a 16 × kcNN
// scratch and packed from there, so every band of rows shares x's blocks
// in L2; the widened values, the packed panel and the sums are those of
// the f32 path on the widened rows, bit for bit. Before, each qPanel of
// 32 rows ran its own product, reading all of x again from L3 for two
// panels. Fewer tokens: the qPanel path (4 × 3 dot tiles).
func matMulQAVX2(ws *Workspace, q Quant, out []float32, ldOut int, w []byte, x []float32, n, cols int) {
	if n < nBcast2F32 {
		matMulQPanels(ws, q, out, ldOut, w, x, n, cols)
		return
	}
	matMulQBands(tile16x6, ws, q, out, ldOut, w, x, n, cols)
}

// matMulQAVX512 is matMulQAVX2 on the AVX-512 tile (32 rows × 12 tokens,
// matMulBcast's) once x outgrows half of L2 (past 170 tokens of 1536
// columns): every band of 32-row panels shares x's column blocks in L2,
// where the qPanel path read all of x (3 MB at 512 tokens) again for each
// 32 rows. Xeon VM, 8960 × 1536, one thread, GFLOP/s, qPanel → bands:
// Q4_K 127 → 145 at n = 512; at n = 64, x in L2, the qPanel path was
// ahead (56 against 52) and keeps those. The sums are matMulBcast's on
// the widened rows, which are the qPanel path's, bit for bit.
func matMulQAVX512(ws *Workspace, q Quant, out []float32, ldOut int, w []byte, x []float32, n, cols int) {
	if n < nBcastF32 || panelsFirst(n, cols) {
		matMulQPanels(ws, q, out, ldOut, w, x, n, cols)
		return
	}
	matMulQBands(tile32x12, ws, q, out, ldOut, w, x, n, cols)
}

// matMulQBands runs the bands of tile t over the quantised rows of w:
// each panel's column block (kcNN columns at most: whole blocks) is
// widened row by row into a width × k scratch and packed from there.
func matMulQBands(t bandTile, ws *Workspace, q Quant, out []float32, ldOut int, w []byte, x []float32, n, cols int) {
	rb, bl, bb := q.RowBytes(cols), q.BlockLen(), q.BlockBytes()
	rows, wd := len(w)/rb, t.width
	rowsOf := grow(&ws.qf, wd*kcNN)
	pack := func(pk []float32, r, k0, k int) {
		for j := range wd {
			if r+j < rows {
				cur.dequantRow(q, rowsOf[j*k:(j+1)*k], w[(r+j)*rb+k0/bl*bb:][:k/bl*bb])
			} else {
				clear(rowsOf[j*k : (j+1)*k])
			}
		}
		t.packF32(&pk[0], &rowsOf[0], k, k)
	}
	ahead := func(r, lim, k0, k int) rowsAhead {
		cnt := (min(r+wd, lim) - r) &^ 3
		if cnt <= 0 {
			return rowsAhead{}
		}
		return rowsAhead{unsafe.Pointer(&w[r*rb+k0/bl*bb]), rb, k / bl * bb, cnt}
	}
	bands(t, ws, out, ldOut, rows, cols, x, n, cols, pack, ahead)
}

// bandRows is the band of rows of the bands for n tokens of m columns and
// panels of width rows: one panel through all its blocks (W read row by
// row) when x fits in half of L2 (panelsFirst), else as many whole panels
// as keep the band's out (n × band floats) within outInL2.
func bandRows(n, m, width int) int {
	if panelsFirst(n, m) {
		return width
	}
	return max(width, outInL2/(4*n)/width*width)
}

// outInL2 is the most bytes of out a band of matMulBcastAVX2 writes: a
// quarter of one core's L2, beside x's block (n × kcNN floats, 0.5 MiB
// at n = 512). A variable so the tests can run bands of any size.
var outInL2 = l2Bytes() / 4

// tiles16 runs the 16 × 6 tiles over n ≥ 6 tokens against the packed
// panel pk (k × 16): out[t·ldOut+j] (+)= Σ_c x[t·ldx+c]·pk[c·16+j] for
// j < jn, then one tile of the 4 or 5 tokens left. Fewer than 4 left, and
// every tile of a partial panel, go through a scratch tile whose rows
// overlap the tile before; put adds the rows needed, bit-identically.
// With the 6-token tile alone a 17-token prompt ran 18 token rows, a
// 16-token one 18 and a 19-token one 24 (22 with the 4-token tile).
func tiles16(out []float32, ldOut int, pk, x []float32, ldx, n, jn, k, acc int, next rowsAhead) {
	var tile [tok2 * col2]float32
	ahead := next.spread((n + tok2 - 1) / tok2)
	for i, t := 1, 0; t < n; i++ {
		ahead.upTo(i)
		nt := min(tok2, max(4, n-t))
		if jn == col2 && t+nt <= n {
			tile16(nt, &out[t*ldOut], ldOut, &pk[0], &x[t*ldx], ldx, k, acc)
			t += nt
			continue
		}
		t0 := max(0, min(t, n-nt))
		tile16(nt, &tile[0], col2, &pk[0], &x[t0*ldx], ldx, k, 0)
		for ; t < min(t0+nt, n); t++ {
			put(out[t*ldOut:t*ldOut+jn], tile[(t-t0)*col2:(t-t0)*col2+jn], acc)
		}
	}
	ahead.upTo(ahead.tiles)
}

// aheadOver spreads the prefetches of rowsAhead (groups of four rows)
// evenly over the tiles of a panel, as tilesNN does: upTo(i) issues those
// due before tile i (1-based), upTo(tiles) the rest (tiles16).
type aheadOver struct {
	rowsAhead
	tiles, groups, done int
}

func (r rowsAhead) spread(tiles int) aheadOver {
	return aheadOver{rowsAhead: r, tiles: max(tiles, 1), groups: r.rows / 4}
}

func (a *aheadOver) upTo(i int) {
	for ; a.done < a.groups && (a.done*a.tiles < i*a.groups || i >= a.tiles); a.done++ {
		prefetch4(unsafe.Add(a.p, 4*a.done*a.ld), a.ld, a.n)
	}
}
