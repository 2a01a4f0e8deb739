package kernels

import (
	"encoding/binary"
	"math"
	"strings"
	"sync"
)

// Integer prefill for quantised weights: the tokens' activations are
// rounded to 8 bits as decode rounds them (QuantizedX: per block of 32
// columns), and 8 rows of weights, unpacked once into a panel of bytes,
// meet 6 tokens at a time in integers. A Q4_K weight is 4 bits: its
// products with 8-bit activations sum exactly in int16 over a sub-block of
// 32 columns, so one vector instruction does 32 multiply-adds where an
// fp32 FMA does 8 (VPMADDUBSW + VPADDW on AVX2, VPDPBUSD on AVX-VNNI). The
// output is the dot product MatVecQ8 defines, summed in another order:
// the same rounding of the activations, the same bound against x.

// QuantizedRows holds n activation rows, each rounded as
// QuantizedX.Quantize rounds one, laid out for the multi-token tiles.
// The zero value is ready to use; it keeps its buffers between calls.
type QuantizedRows struct {
	q  []int8    // [n, cols] round(x_c/dx_b), |q| ≤ 127
	ds []float32 // [n, cols/32, 4] dx_b, Σx̂ of the block (dx_b·Σq), then −32·Σq of each 16 columns as int32 bits
	n  int
	// cols is the length of every row.
	cols int
}

// Prepare sizes a for n rows of cols columns (a multiple of 32).
func (a *QuantizedRows) Prepare(n, cols int) {
	if cols%32 != 0 {
		panic("kernels: QuantizedRows.Prepare: cols not a multiple of 32")
	}
	a.n, a.cols = n, cols
	grow(&a.q, n*cols)
	grow(&a.ds, n*cols/8)
}

// Rows is the number of rows last prepared.
func (a *QuantizedRows) Rows() int { return a.n }

// Quantize rounds rows lo … hi−1 of x ([n, cols], as prepared) into a.
// Workers may call it at once on disjoint ranges.
func (a *QuantizedRows) Quantize(x []float32, lo, hi int) {
	c := a.cols
	if len(x) < a.n*c || lo < 0 || hi > a.n {
		panic("kernels: QuantizedRows.Quantize: rows out of range")
	}
	sx := rowScratch.Get().(*QuantizedX)
	defer rowScratch.Put(sx)
	for t := lo; t < hi; t++ {
		sx.Quantize(x[t*c : (t+1)*c]) // the side arrays; q is copied below
		copy(a.q[t*c:(t+1)*c], sx.q[:c])
		ds := a.ds[t*c/8 : (t+1)*c/8]
		for b := range c / 32 {
			ds[4*b], ds[4*b+1] = sx.dc[b], sx.s[b]
			for h := range 2 {
				n := sx.n32[8*b+4*h : 8*b+4*h+4]
				ds[4*b+2+h] = math.Float32frombits(uint32(n[0] + n[1] + n[2] + n[3]))
			}
		}
	}
}

// rowScratch lends Quantize a QuantizedX for one row at a time.
var rowScratch = sync.Pool{New: func() any { return new(QuantizedX) }}

// Q8Tiles reports whether the active level multiplies several tokens of
// q weights in integers (MatMulQ8Rows runs its tiles); when false, the
// engine's prefill widens the weights to fp32 (MatMulQ).
func Q8Tiles(q Quant) bool { return Current().Q8Tiles(q) }

// MatMulQ8Rows computes out[t·ldOut+r] = Σ_c W[r][c]·x̂_t[c] for the
// tokens t < a.Rows() and the rows r < len(w)/q.RowBytes(a.cols): each
// output is MatVecQ8's dot product for its token, summed by the level's
// tile (or the readable one): Q4_K, Q5_K, Q6_K and Q8_0. ws may be nil.
func MatMulQ8Rows(ws *Workspace, q Quant, out []float32, ldOut int, w []byte, a *QuantizedRows) {
	if q != Q4K && q != Q5K && q != Q6K && q != Q8_0 {
		panic("kernels: MatMulQ8Rows: no tile for " + q.String())
	}
	n, cols := a.n, a.cols
	if n == 0 || cols == 0 {
		return
	}
	if cols%q.BlockLen() != 0 {
		panic("kernels: MatMulQ8Rows: cols not a multiple of the block")
	}
	if ws == nil {
		ws = workspaces.Get().(*Workspace)
		defer workspaces.Put(ws)
	}
	rb := q.RowBytes(cols)
	rows := len(w) / rb
	checkMatMul("MatMulQ8Rows", len(out), ldOut, n*cols, n, rows, cols)
	tiles := cur.q8Tiles
	if tiles == nil || !tiles.has(q) {
		tiles = &genericTiles
	}
	wq, sm := grow(&ws.q8w, q8Chunk*cols), grow(&ws.q8s, q8Chunk/8*cols/2)
	for r0 := 0; r0 < rows; r0 += q8Chunk {
		rc := min(q8Chunk, rows-r0)
		groups := (rc + 7) / 8
		for g := range groups {
			tiles.pack(q, wq[g*8*cols:(g+1)*8*cols], sm[g*cols/2:(g+1)*cols/2], w[(r0+8*g)*rb:], min(8, rc-8*g), cols)
		}
		for t0, most := 0, tiles.most(q); t0 < n; t0 += most {
			T := min(most, n-t0)
			for g := range groups {
				tiles.run(q, T, ws, out, ldOut, t0, r0+8*g, rows, wq[g*8*cols:], sm[g*cols/2:], a)
			}
		}
	}
}

// q8Chunk rows are unpacked at a time: 32 rows of 8,960 columns are 280
// KiB of panel, read from L2 by every 6 tokens.
const q8Chunk = 32

// tileTokens is the most tokens a tile holds: 6 int sums and 6 fp32 sums
// in 12 of AVX2's 16 Y registers.
const tileTokens = 6

// tileFunc is one tile kernel: 8 rows (the panel wq, its scales sm) × T
// tokens (x, ldx bytes apart; ds, ldd floats apart), nb blocks of 32
// columns, into out (ldOut floats a token).
type tileFunc func(out *float32, ldOut int, wq *byte, sm *float32, x *int8, ldx int, ds *float32, ldd int, nb int)

// q8Tiles is a level's tiles: [T] for T = 1 … tileTokens, nil for a
// format without them. generic marks the readable ones.
type q8Tiles struct {
	q4k, q5k, q6k, q8 [tileTokens + 1]tileFunc
	// peak is the tiles' instructions in a register loop (Int8PeakLoop);
	// name names them ("AVX-VNNI VPDPBUSD").
	peak func(iters int) int64
	name string
	// packQ4K … packQ8 write a panel's bytes for 8 whole rows (rb bytes
	// apart, nb blocks); nil: packQ8Panel's readable unpacking.
	packQ4K, packQ5K, packQ6K, packQ8 func(wq *byte, src *byte, rb int, nb int)
	generic                           bool
}

// pack is packQ8Panel with the level's byte unpacking where it has one.
func (s *q8Tiles) pack(q Quant, wq []byte, sm []float32, src []byte, nr, cols int) {
	f := s.packQ4K
	switch q {
	case Q5K:
		f = s.packQ5K
	case Q6K:
		f = s.packQ6K
	case Q8_0:
		f = s.packQ8
	}
	if f == nil || nr < 8 {
		packQ8Panel(q, wq, sm, src, nr, cols)
		return
	}
	rb := q.RowBytes(cols)
	_ = src[8*rb-1]
	f(&wq[0], &src[0], rb, cols/q.BlockLen())
	for i := range 8 {
		packScales(q, sm, src[i*rb:(i+1)*rb], i, cols)
	}
}

func (s *q8Tiles) has(q Quant) bool {
	k := s.kernels(q)
	return k != nil && (s.generic || k[1] != nil)
}

// kernels is the tiles of format q, nil for a format without them.
func (s *q8Tiles) kernels(q Quant) *[tileTokens + 1]tileFunc {
	switch q {
	case Q4K:
		return &s.q4k
	case Q5K:
		return &s.q5k
	case Q6K:
		return &s.q6k
	case Q8_0:
		return &s.q8
	}
	return nil
}

// most is the most tokens a tile of format q holds (AVX2's Q5_K tile:
// 4, its int16 and int32 sums taking 8 registers).
func (s *q8Tiles) most(q Quant) int {
	k := s.kernels(q)
	T := tileTokens
	for !s.generic && T > 1 && k[T] == nil {
		T--
	}
	return T
}

// Int8PeakLoop runs iters rounds of the active level's integer tile
// instructions held in registers and returns the operations done (2 a
// multiply-add), as FMAPeakLoop does for FMAs: the ceiling of a prefill
// whose products are integer (Q8Tiles). 0 where the level has no tiles.
func Int8PeakLoop(iters int) int64 {
	if cur.q8Tiles == nil || cur.q8Tiles.peak == nil || iters <= 0 {
		return 0
	}
	return cur.q8Tiles.peak(iters)
}

// Int8PeakLoopName names Int8PeakLoop's instructions: "int8 VPDPBUSD",
// "int8 VPMADDUBSW"; "" where the level has no tiles.
func Int8PeakLoopName() string {
	if cur.q8Tiles == nil {
		return ""
	}
	return "int8 " + cur.q8Tiles.name[strings.IndexByte(cur.q8Tiles.name, ' ')+1:]
}

// genericTiles runs the readable tiles (tileQ4KGeneric, tileQ6KGeneric,
// tileQ8_0Generic).
var genericTiles = q8Tiles{generic: true}

// run multiplies the 8 rows from r (of rows) by tokens t0 … t0+T−1. A
// last group of fewer than 8 rows is written through a scratch tile.
func (s *q8Tiles) run(q Quant, T int, ws *Workspace, out []float32, ldOut, t0, r, rows int, wq []byte, sm []float32, a *QuantizedRows) {
	dst, ld := out[t0*ldOut+r:], ldOut
	if r+8 > rows {
		dst, ld = grow(&ws.q8o, tileTokens*8), 8
	}
	c := a.cols
	switch {
	case !s.generic:
		s.kernels(q)[T](&dst[0], ld, &wq[0], &sm[0], &a.q[t0*c], c, &a.ds[t0*c/8], c/8, c/32)
	case q == Q6K:
		tileQ6KGeneric(dst, ld, wq, sm, a, t0, T)
	case q == Q8_0:
		tileQ8_0Generic(dst, ld, wq, sm, a, t0, T)
	default:
		tileQ4KGeneric(dst, ld, wq, sm, a, t0, T) // Q5_K's 5-bit weights alike
	}
	copyPartialTile(out, ldOut, t0, r, rows, T, dst, ld)
}

// copyPartialTile copies the rows r … rows−1 of a scratch tile (ld 8) to
// out, when the tile's 8 rows pass the matrix's end.
func copyPartialTile(out []float32, ldOut, t0, r, rows, T int, tile []float32, ld int) {
	if r+8 <= rows {
		return
	}
	for t := range T {
		copy(out[(t0+t)*ldOut+r:(t0+t)*ldOut+rows], tile[t*ld:t*ld+rows-r])
	}
}

// packQ8Panel unpacks nr ≤ 8 rows of q blocks (src, q.RowBytes(cols)
// bytes a row) into the panel the tiles read, rows nr … 7 zero:
//
//	wq [cols/4][8][4]byte: weight q of columns 4k … 4k+3 of each row,
//	   unsigned (Q4_K 0…15, Q5_K 0…31, Q6_K 0…63, Q8_0 q + 128: the
//	   −32 and −128 are the activations' side)
//	sm [cols/32][16]float32: Q4_K and Q5_K d·sc of the sub-block for the
//	   8 rows, then dmin·m; Q6_K d·sc of each of the block's two groups
//	   of 16; Q8_0 d of the block (the other 8 unused).
func packQ8Panel(q Quant, wq []byte, sm []float32, src []byte, nr, cols int) {
	rb := q.RowBytes(cols)
	for i := range 8 {
		if i >= nr {
			for k := range cols / 4 {
				binary.LittleEndian.PutUint32(wq[(k*8+i)*4:], 0)
			}
			for j := range cols / 32 {
				sm[j*16+i], sm[j*16+8+i] = 0, 0
			}
			continue
		}
		row := src[i*rb : (i+1)*rb]
		packScales(q, sm, row, i, cols)
		switch q {
		case Q4K:
			packQ4KRow(wq, row, i, cols)
		case Q5K:
			packQ5KRow(wq, row, i, cols)
		case Q8_0:
			packQ8_0Row(wq, row, i, cols)
		default:
			packQ6KRow(wq, row, i, cols)
		}
	}
}

// packScales writes row i's column of a panel's scales (packQ8Panel's
// sm) from the row's blocks.
func packScales(q Quant, sm []float32, row []byte, i, cols int) {
	switch q {
	case Q6K:
		scalesQ6K(sm, row, i, cols)
	case Q8_0:
		scalesQ8_0(sm, row, i, cols)
	default: // Q4_K, Q5_K: the same scales and mins, blocks of 144 or 176 bytes
		scalesQ4K(sm, row, i, cols, q.RowBytes(256))
	}
}

// packQ4KRow writes row i of a Q4_K panel's bytes: sub-block s of a
// block holds the low (s even) or high nibbles of qs[32·(s/2) …].
func packQ4KRow(wq []byte, row []byte, i, cols int) {
	for b := range cols / 256 {
		blk := row[b*144 : (b+1)*144]
		for s := range 8 {
			j := b*8 + s
			qs, sh := blk[16+32*(s/2):16+32*(s/2)+32], 4*(s%2)
			for g := range 8 {
				v := binary.LittleEndian.Uint32(qs[4*g:]) >> sh & 0x0f0f0f0f
				binary.LittleEndian.PutUint32(wq[((j*8+g)*8+i)*4:], v)
			}
		}
	}
}

// packQ5KRow writes row i of a Q5_K panel's bytes: Q4_K's nibbles (qs at
// byte 48 of a block) with bit s of qh[l] (bytes 16-47) as the fifth bit
// of weight l of sub-block s (q5k.go).
func packQ5KRow(wq []byte, row []byte, i, cols int) {
	for b := range cols / 256 {
		blk := row[b*176 : (b+1)*176]
		qh := blk[16:48]
		for s := range 8 {
			j := b*8 + s
			qs, sh := blk[48+32*(s/2):48+32*(s/2)+32], 4*(s%2)
			for g := range 8 {
				v := binary.LittleEndian.Uint32(qs[4*g:])>>sh&0x0f0f0f0f | (binary.LittleEndian.Uint32(qh[4*g:])>>s&0x01010101)<<4
				binary.LittleEndian.PutUint32(wq[((j*8+g)*8+i)*4:], v)
			}
		}
	}
}

// packQ8_0Row writes row i of a Q8_0 panel's bytes: each block's 32 signed
// weights (after its f16 d), stored + 128.
func packQ8_0Row(wq []byte, row []byte, i, cols int) {
	for b := range cols / 32 {
		qs := row[b*34+2 : b*34+34]
		for g := range 8 {
			v := binary.LittleEndian.Uint32(qs[4*g:]) ^ 0x80808080
			binary.LittleEndian.PutUint32(wq[((b*8+g)*8+i)*4:], v)
		}
	}
}

// scalesQ8_0 writes row i's column of a Q8_0 panel's scales: d of each
// block.
func scalesQ8_0(sm []float32, row []byte, i, cols int) {
	for b := range cols / 32 {
		sm[b*16+i] = f16At(row[b*34:])
	}
}

// packQ6KRow writes row i of a Q6_K panel's bytes: the weight at column
// 128h + 32p + l of a block (p < 4, l < 32) is the p-th nibble choice of
// ql (low or high nibble of ql[64h + l] or ql[64h + 32 + l]) with two
// bits of qh[32h + l] above it (llama.cpp's dequantize_row_q6_K;
// docs/spec/formats.md B.5).
func packQ6KRow(wq []byte, row []byte, i, cols int) {
	const lo4, lo2 = 0x0f0f0f0f, 0x03030303
	for b := range cols / 256 {
		blk := row[b*210 : (b+1)*210]
		for h := range 2 {
			ql, qh := blk[h*64:h*64+64], blk[128+h*32:128+h*32+32]
			for l := 0; l < 32; l += 4 {
				a, c, e := binary.LittleEndian.Uint32(ql[l:]), binary.LittleEndian.Uint32(ql[l+32:]), binary.LittleEndian.Uint32(qh[l:])
				for p, v := range [4]uint32{
					a&lo4 | (e&lo2)<<4, c&lo4 | (e>>2&lo2)<<4,
					a>>4&lo4 | (e>>4&lo2)<<4, c>>4&lo4 | (e>>6&lo2)<<4,
				} {
					col := b*256 + 128*h + 32*p + l // 4 columns from here
					binary.LittleEndian.PutUint32(wq[((col/4)*8+i)*4:], v)
				}
			}
		}
	}
}

// scalesQ4K writes row i's column of a Q4_K or Q5_K panel's scales (bb
// bytes a block: 144, 176): d·sc and dmin·m of each sub-block, the 6-bit
// pairs of scales[12] unpacked four at a time (ScaleMinK4: sub-blocks 0-3
// take the low 6 bits of bytes 0-3 and 4-7, sub-blocks 4-7 a nibble of
// bytes 8-11 and the top 2 bits of bytes 0-3 and 4-7).
func scalesQ4K(sm []float32, row []byte, i, cols, bb int) {
	const lo6, lo4, lo2 = 0x3f3f3f3f, 0x0f0f0f0f, 0x03030303
	for b := range cols / 256 {
		blk := row[b*bb : b*bb+16]
		d, dmin := f16At(blk), f16At(blk[2:])
		q0, q1, q2 := binary.LittleEndian.Uint32(blk[4:]), binary.LittleEndian.Uint32(blk[8:]), binary.LittleEndian.Uint32(blk[12:])
		sc0, sc1 := q0&lo6, q2&lo4|(q0>>6&lo2)<<4 // sc[0:4], sc[4:8], a byte each
		m0, m1 := q1&lo6, q2>>4&lo4|(q1>>6&lo2)<<4
		o := sm[b*128+i : b*128+i+121] // o[16s]: d·sc[s], o[16s+8]: dmin·m[s]
		o[0], o[8] = d*float32(uint8(sc0)), dmin*float32(uint8(m0))
		o[16], o[24] = d*float32(uint8(sc0>>8)), dmin*float32(uint8(m0>>8))
		o[32], o[40] = d*float32(uint8(sc0>>16)), dmin*float32(uint8(m0>>16))
		o[48], o[56] = d*float32(sc0>>24), dmin*float32(m0>>24)
		o[64], o[72] = d*float32(uint8(sc1)), dmin*float32(uint8(m1))
		o[80], o[88] = d*float32(uint8(sc1>>8)), dmin*float32(uint8(m1>>8))
		o[96], o[104] = d*float32(uint8(sc1>>16)), dmin*float32(uint8(m1>>16))
		o[112], o[120] = d*float32(sc1>>24), dmin*float32(m1>>24)
	}
}

// scalesQ6K writes row i's column of a Q6_K panel's scales: d·sc of each
// group of 16 columns, two to a block of 32.
func scalesQ6K(sm []float32, row []byte, i, cols int) {
	for b := range cols / 256 {
		blk := row[b*210 : (b+1)*210]
		d := f16At(blk[208:])
		o := sm[b*128 : b*128+128]
		for g, v := range blk[192:208] {
			o[(g/2)*16+(g%2)*8+i] = d * float32(int8(v))
		}
	}
}

// tileQ4KGeneric is the readable reference of the Q4_K tiles: for each of
// the 8 rows i and tokens t0 … t0+T−1, over every sub-block j,
// out += float(Σ q·x) · (d·sc · dx) − dmin·m · Σx̂.
func tileQ4KGeneric(out []float32, ldOut int, wq []byte, sm []float32, a *QuantizedRows, t0, T int) {
	tileGeneric(out, ldOut, a, t0, T, a.cols/32, func(x []int8, ds []float32, i, j int) float32 {
		isum := panelDot(wq, x, i, j*8, 8)
		return float32(isum)*(sm[j*16+i]*ds[4*j]) - sm[j*16+8+i]*ds[4*j+1]
	})
}

// tileQ6KGeneric is the readable reference of the Q6_K tiles: for each
// group g of 16 columns (half h of block j), out += float(Σ q·x − 32·Σx)
// · (d·sc · dx).
func tileQ6KGeneric(out []float32, ldOut int, wq []byte, sm []float32, a *QuantizedRows, t0, T int) {
	tileGeneric(out, ldOut, a, t0, T, a.cols/16, func(x []int8, ds []float32, i, g int) float32 {
		j, h := g/2, g%2
		isum := int32(math.Float32bits(ds[4*j+2+h])) + panelDot(wq, x, i, j*8+4*h, 4)
		return float32(isum) * (sm[j*16+8*h+i] * ds[4*j])
	})
}

// tileQ8_0Generic is the readable reference of the Q8_0 tiles: for each
// block, out += float(Σ (q+128)·x − 128·Σx) · (d · dx).
func tileQ8_0Generic(out []float32, ldOut int, wq []byte, sm []float32, a *QuantizedRows, t0, T int) {
	tileGeneric(out, ldOut, a, t0, T, a.cols/32, func(x []int8, ds []float32, i, j int) float32 {
		n128 := 4 * (int32(math.Float32bits(ds[4*j+2])) + int32(math.Float32bits(ds[4*j+3])))
		return float32(n128+panelDot(wq, x, i, j*8, 8)) * (sm[j*16+i] * ds[4*j])
	})
}

// tileGeneric is the readable tiles' common frame: out[t·ldOut+i] = the
// sum, in order, of term(x, ds, i, u) over the n units u of row i (a
// format's blocks or groups), for the 8 rows i and tokens t0 … t0+T−1;
// x and ds are the token's rounded activations and their scales.
func tileGeneric(out []float32, ldOut int, a *QuantizedRows, t0, T, n int, term func(x []int8, ds []float32, i, u int) float32) {
	c := a.cols
	for t := range T {
		x, ds := a.q[(t0+t)*c:(t0+t+1)*c], a.ds[(t0+t)*c/8:(t0+t+1)*c/8]
		for i := range 8 {
			var acc float32
			for u := range n {
				acc += term(x, ds, i, u)
			}
			out[t*ldOut+i] = acc
		}
	}
}

// panelDot is Σ over the k-groups k0 … k0+nk−1 (4 columns each) of row i
// of the panel times the token's x, in exact integers.
func panelDot(wq []byte, x []int8, i, k0, nk int) int32 {
	var s int32
	for k := k0; k < k0+nk; k++ {
		for l := range 4 {
			s += int32(wq[(k*8+i)*4+l]) * int32(x[4*k+l])
		}
	}
	return s
}
