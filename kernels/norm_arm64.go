//go:build !purego

package kernels

// Stubs in norm_arm64.s (tools/neonasm/gen.py): n a positive multiple of
// 8; the references are in norm_generic.go.

//go:noescape
func maxNEON(x *float32, n int) float32

//go:noescape
func expSubSumNEON(x *float32, m float32, n int) float32

//go:noescape
func scaleNEON(x *float32, a float32, n int)

//go:noescape
func siluMulNEON(out, gate, up *float32, n int)

//go:noescape
func sumSquaresNEON(x *float32, n int) float64

//go:noescape
func rmsScaleNEON(out, x, w *float32, inv float32, n int)

// softmaxNEON is softmaxGeneric with its three passes in NEON; x non-empty.
func softmaxNEON(x []float32) {
	n := len(x) &^ 7
	m := x[0]
	if n > 0 {
		m = maxNEON(&x[0], n)
	}
	m = maxGeneric(m, x[n:])
	var s float32
	if n > 0 {
		s = expSubSumNEON(&x[0], m, n)
	}
	s += expSubSumGeneric(x[n:], m)
	inv := 1 / s
	if n > 0 {
		scaleNEON(&x[0], inv, n)
	}
	scaleGeneric(x[n:], inv)
}

// siluMulNEONSlice is siluMulGeneric on whole steps of 8; out may be gate.
func siluMulNEONSlice(out, gate, up []float32) {
	n := len(gate) &^ 7
	if n > 0 {
		siluMulNEON(&out[0], &gate[0], &up[0], n)
	}
	siluMulGeneric(out[n:], gate[n:], up[n:])
}

// rmsNormNEON is rmsNormGeneric with both passes in NEON; x non-empty.
func rmsNormNEON(out, x, w []float32, eps float32) {
	n := len(x) &^ 7
	var ss float64
	if n > 0 {
		ss = sumSquaresNEON(&x[0], n)
	}
	inv := rmsInv(ss+sumSquaresGeneric(x[n:]), len(x), eps)
	if n > 0 {
		rmsScaleNEON(&out[0], &x[0], &w[0], inv, n)
	}
	rmsScaleGeneric(out[n:], x[n:], w[n:], inv)
}
