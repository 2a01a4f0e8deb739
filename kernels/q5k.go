package kernels

// Q5_K (ggml-common.h block_q5_K): 256 weights in 176 bytes — f16 d, f16
// dmin, 12 bytes packing eight 6-bit scales and eight 6-bit mins (as Q4_K,
// ScaleMinK4), 32 bytes qh of high bits, 128 bytes qs of low nibbles.
// Weight l of sub-block s (32 weights, l < 32) is d·sc[s]·q − dmin·m[s],
// q = its nibble (low for even s, high for odd, of qs[32·(s/2) + l]) plus
// 16 times bit s of qh[l]. It runs through the widening path (DequantRow
// and the f32 kernels): the common Q5_K_M files keep most matrices in it.

// dequantQ5K is the readable definition, written as ggml's
// dequantize_row_q5_K: two sub-blocks per 32 bytes of nibbles, their high
// bits in bits 2p and 2p+1 of qh.
func dequantQ5K(y []float32, b []byte) {
	d, dmin := f16At(b[0:]), f16At(b[2:])
	scales, qh, qs := b[4:16], b[16:48], b[48:176]
	for p := range 4 { // pairs of sub-blocks 2p, 2p+1
		sc0, m0 := ScaleMinK4(2*p, scales)
		sc1, m1 := ScaleMinK4(2*p+1, scales)
		d0, d1 := d*float32(sc0), d*float32(sc1)
		o0, o1 := dmin*float32(m0), dmin*float32(m1)
		q := qs[p*32:]
		for l := range 32 {
			h0, h1 := (qh[l]>>(2*p))&1, (qh[l]>>(2*p+1))&1
			y[p*64+l] = d0*float32(q[l]&15|h0<<4) - o0
			y[p*64+32+l] = d1*float32(q[l]>>4|h1<<4) - o1
		}
	}
}

// quantizeQ5K: each sub-block of 32 gets scale (max−min)/31 and offset
// −min (min clamped to ≤ 0); the scales and offsets are 6-bit against
// d = max scale/63 and dmin = max offset/63, and q ∈ [0, 31] is fitted with
// the f16-rounded d·sc and dmin·m the reader uses.
func quantizeQ5K(b []byte, x []float32) {
	var scale, offset [8]float32
	var maxScale, maxOffset float32
	for s := range 8 {
		lo, hi := x[s*32], x[s*32]
		for _, v := range x[s*32 : s*32+32] {
			lo, hi = min(lo, v), max(hi, v)
		}
		lo = min(lo, 0)
		scale[s], offset[s] = (hi-lo)/31, -lo
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
	clear(b[16:176])
	for s := range 8 {
		ds, dm := d*float32(sc[s]), dmin*float32(mn[s])
		for l := range 32 {
			var q int
			if ds > 0 {
				q = int(max(0, min(31, roundf((x[s*32+l]+dm)/ds))))
			}
			b[48+32*(s/2)+l] |= byte(q&15) << (4 * (s % 2))
			b[16+l] |= byte(q>>4) << s
		}
	}
}
