package kernels

import "math"

// F16ToF32 widens an IEEE binary16 number exactly: exponent 0 is subnormal
// (±m·2⁻²⁴), 31 is ±Inf or NaN, else ±(1 + m/1024)·2^(e−15).
func F16ToF32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0:
		v := float32(mant) * (1.0 / (1 << 24))
		return math.Float32frombits(math.Float32bits(v) | sign)
	case exp == 31:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// F32ToF16 rounds f to the nearest binary16, ties to even (as F16C's
// VCVTPS2PH and ggml's GGML_FP32_TO_FP16 do); overflow gives ±Inf, NaN a
// quiet NaN.
func F32ToF16(f float32) uint16 {
	u := math.Float32bits(f)
	sign := uint16(u>>16) & 0x8000
	exp := int(u>>23) & 0xff
	mant := u & 0x7fffff
	switch {
	case exp == 0xff:
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp-127+15 >= 31:
		return sign | 0x7c00
	case exp-127+15 <= 0: // subnormal or zero in binary16
		// f = m·2^(exp−150) with the implicit bit; in units of 2⁻²⁴
		shift := uint32(126 - exp)
		if exp == 0 || shift > 24 {
			return sign
		}
		return sign | uint16(roundShift(mant|0x800000, shift))
	}
	e := uint16(exp - 127 + 15)
	r := roundShift(mant, 13)
	return sign + (e<<10 + uint16(r)) // a carry out of the mantissa bumps the exponent
}

// roundShift returns m >> s rounded to nearest, ties to even.
func roundShift(m, s uint32) uint32 {
	q := m >> s
	rem := m & (1<<s - 1)
	half := uint32(1) << (s - 1)
	if rem > half || rem == half && q&1 == 1 {
		q++
	}
	return q
}
