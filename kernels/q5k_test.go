package kernels

import "math"

// oracleQ5K widens one Q5_K block in float64, weight by weight from the
// layout (not ggml's loop over pairs): weight j of sub-block s = j/32 is
// d·sc[s]·q − dmin·m[s], q = nibble s%2 of qs[32·(s/2) + j%32] plus 16
// times bit s of qh[j%32]. mag is each term's magnitude.
func oracleQ5K(y, mag []float64, b []byte) {
	d, dmin := f16x(b), f16x(b[2:])
	sc, qh, qs := b[4:16], b[16:48], b[48:176]
	for j := range 256 {
		s, l := j/32, j%32
		var scale, mn int
		if s < 4 {
			scale, mn = int(sc[s]&63), int(sc[s+4]&63)
		} else {
			scale = int(sc[s+4]&15) | int(sc[s-4]>>6)<<4
			mn = int(sc[s+4]>>4) | int(sc[s]>>6)<<4
		}
		nib := int(qs[32*(s/2)+l]>>(4*(s%2))) & 15
		q := nib + 16*(int(qh[l]>>s)&1)
		y[j] = d*float64(scale)*float64(q) - dmin*float64(mn)
		mag[j] = math.Abs(d*float64(scale)*float64(q)) + math.Abs(dmin*float64(mn))
	}
}
