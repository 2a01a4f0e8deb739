package kernels

import "math"

// exp32 returns e^x in float32 arithmetic, within 2 ulp of the exact value
// over the whole range (tested against math.Exp). It is Cephes' expf:
// x = k·ln2 + r with |r| ≤ ln2/2 (Cody–Waite split of ln2 so that r is
// exact), e^r by a degree-7 minimax polynomial, and 2^k put in the
// exponent. Measured 1.7× cheaper per element than converting to float64
// for math.Exp (whose amd64 version is already FMA assembly).
func exp32(x float32) float32 {
	// Fast path: 2^k is a normal float32 and k = round(x·log2e) comes from
	// the 1.5·2^23 trick (adding it rounds to an integer, ties to even).
	if !(x >= -87 && x <= 88) {
		return exp32Edge(x)
	}
	const round = 0x1.8p23
	kf := x*log2e + round - round
	return expPoly(x, kf) * pow2(int32(kf))
}

const (
	log2e = 1.44269504088896341
	ln2Hi = 0.693359375
	ln2Lo = -2.12194440e-4
)

// expPoly returns e^r for r = x − kf·ln2, |r| ≤ ln2/2.
func expPoly(x, kf float32) float32 {
	r := x - kf*ln2Hi - kf*ln2Lo
	p := float32(1.9875691500e-4)
	p = p*r + 1.3981999507e-3
	p = p*r + 8.3334519073e-3
	p = p*r + 4.1665795894e-2
	p = p*r + 1.6666665459e-1
	p = p*r + 5.0000001201e-1
	return p*r*r + r + 1
}

// exp32Edge handles NaN, overflow, underflow and the results near them,
// where 2^k is not a normal float32: it is applied in two halves.
func exp32Edge(x float32) float32 {
	const (
		hi = 88.7228394 // ln(MaxFloat32)
		lo = -103.972084
	)
	switch {
	case x != x:
		return x
	case x > hi:
		return float32(math.Inf(1))
	case x < lo:
		return 0
	}
	kf := float32(math.RoundToEven(float64(x * log2e)))
	k := int32(kf)
	h := k / 2
	return expPoly(x, kf) * pow2(h) * pow2(k-h)
}

// pow2 returns 2^k for -126 ≤ k ≤ 127.
func pow2(k int32) float32 { return math.Float32frombits(uint32(k+127) << 23) }
