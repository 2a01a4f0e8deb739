package kernels

import (
	"encoding/binary"
	"math"
)

// QuantizeRow encodes src (len a multiple of q.BlockLen()) as q blocks
// into dst (q.RowBytes(len(src)) bytes), in the layouts DequantRow reads.
// Q8_0 and Q4_0 follow ggml's reference quantisers exactly
// (quantize_row_q8_0_ref, quantize_row_q4_0_ref); Q4_K, Q5_K and Q6_K use a
// plain min/max fit per sub-block, not ggml's iterative search, so their
// error is somewhat larger than llama.cpp's at the same size.
func QuantizeRow(q Quant, dst []byte, src []float32) {
	bl, bb := q.BlockLen(), q.BlockBytes()
	if len(src)%bl != 0 || len(dst) < len(src)/bl*bb {
		panic("kernels: QuantizeRow: bad lengths")
	}
	for i := 0; i < len(src)/bl; i++ {
		b, x := dst[i*bb:(i+1)*bb], src[i*bl:(i+1)*bl]
		switch q {
		case Q8_0:
			quantizeQ8_0(b, x)
		case Q4_0:
			quantizeQ4_0(b, x)
		case Q4K:
			quantizeQ4K(b, x)
		case Q6K:
			quantizeQ6K(b, x)
		case Q5K:
			quantizeQ5K(b, x)
		}
	}
}

// roundf is C's roundf: halves away from zero.
func roundf(x float32) float32 { return float32(math.Round(float64(x))) }

func putF16(b []byte, f float32) { binary.LittleEndian.PutUint16(b, F32ToF16(f)) }

// quantizeQ8_0: d = max|x|/127, q = roundf(x/d) from the unrounded d, d
// stored as f16 (docs/spec/formats.md B.5).
func quantizeQ8_0(b []byte, x []float32) {
	var amax float32
	for _, v := range x {
		amax = max(amax, abs32(v))
	}
	d := amax / 127
	var id float32
	if d != 0 {
		id = 1 / d
	}
	putF16(b, d)
	for j, v := range x {
		b[2+j] = byte(int8(roundf(v * id)))
	}
}

// quantizeQ4_0: the value of largest magnitude m maps to −8, d = m/−8;
// q = min(15, trunc(x/d + 8.5)).
func quantizeQ4_0(b []byte, x []float32) {
	var amax, m float32
	for _, v := range x {
		if abs32(v) > amax {
			amax, m = abs32(v), v
		}
	}
	d := m / -8
	var id float32
	if d != 0 {
		id = 1 / d
	}
	putF16(b, d)
	q := func(v float32) byte { return byte(min(15, int8(v*id+8.5))) }
	for j := range 16 {
		b[2+j] = q(x[j]) | q(x[j+16])<<4
	}
}

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// quantizeQ4K: each sub-block of 32 gets scale (max−min)/15 and offset
// −min (min clamped to ≤ 0); the eight scales and offsets are quantised to
// 6 bits against d = max scale/63 and dmin = max offset/63, and the
// nibbles are fitted with the f16-rounded d·sc and dmin·m the reader uses.
func quantizeQ4K(b []byte, x []float32) {
	var scale, offset [8]float32
	var maxScale, maxOffset float32
	for s := range 8 {
		lo, hi := float32(0), float32(0)
		for i, v := range x[s*32 : s*32+32] {
			if i == 0 || v < lo {
				lo = v
			}
			if i == 0 || v > hi {
				hi = v
			}
		}
		lo = min(lo, 0)
		scale[s], offset[s] = (hi-lo)/15, -lo
		maxScale, maxOffset = max(maxScale, scale[s]), max(maxOffset, offset[s])
	}
	putF16(b[0:], maxScale/63)
	putF16(b[2:], maxOffset/63)
	d, dmin := f16At(b[0:]), f16At(b[2:])
	var sc, mn [8]uint8
	for s := range 8 {
		if d > 0 {
			sc[s] = uint8(min(63, roundf(scale[s]/d)))
		}
		if dmin > 0 {
			mn[s] = uint8(min(63, roundf(offset[s]/dmin)))
		}
	}
	packScalesK4(b[4:16], sc, mn)
	for i := range b[16:144] {
		b[16+i] = 0
	}
	for s := range 8 {
		ds, dm := d*float32(sc[s]), dmin*float32(mn[s])
		for l := range 32 {
			var q float32
			if ds > 0 {
				q = max(0, min(15, roundf((x[s*32+l]+dm)/ds)))
			}
			b[16+32*(s/2)+l] |= byte(q) << (4 * (s % 2))
		}
	}
}

// packScalesK4 is the inverse of ScaleMinK4.
func packScalesK4(q []byte, sc, m [8]uint8) {
	for s := range 4 {
		q[s] = sc[s]&63 | (sc[s+4]>>4)<<6
		q[s+4] = m[s]&63 | (m[s+4]>>4)<<6
		q[s+8] = sc[s+4]&15 | (m[s+4]&15)<<4
	}
}

// quantizeQ6K: each group of 16 gets scale max|x|/31, the sixteen scales
// are int8 against d = max|scale|/127, and q = round(x/(d·sc)) ∈ [−32, 31]
// is stored plus 32 as a nibble in ql and two bits in qh.
func quantizeQ6K(b []byte, x []float32) {
	var scale [16]float32
	var maxScale float32
	for g := range 16 {
		var amax float32
		for _, v := range x[g*16 : g*16+16] {
			amax = max(amax, abs32(v))
		}
		scale[g] = amax / 31
		maxScale = max(maxScale, scale[g])
	}
	putF16(b[208:], maxScale/127)
	d := f16At(b[208:])
	for i := range b[:208] {
		b[i] = 0
	}
	for g := range 16 {
		if d > 0 {
			b[192+g] = byte(int8(min(127, roundf(scale[g]/d))))
		}
	}
	for j := range 256 {
		ds := d * float32(int8(b[192+j/16]))
		var q int
		if ds > 0 {
			q = int(max(-32, min(31, roundf(x[j]/ds))))
		}
		u := byte(q + 32)
		h, r := j/128, j%128
		k, l := r/32, r%32
		b[64*h+l+32*(k&1)] |= (u & 15) << (4 * (k / 2))
		b[128+32*h+l] |= (u >> 4) << (2 * k)
	}
}
