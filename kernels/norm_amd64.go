//go:build amd64 && !purego

package kernels

// Assembly stubs (norm_amd64.s). n is a multiple of the vector width (8 for
// AVX2, 16 for AVX-512); each stub's reference loop is in its doc comment
// in the .s file and in norm_generic.go.

//go:noescape
func maxAVX2(x *float32, n int) float32

//go:noescape
func maxAVX512(x *float32, n int) float32

//go:noescape
func expSubSumAVX2(x *float32, m float32, n int) float32

//go:noescape
func expSubSumAVX512(x *float32, m float32, n int) float32

//go:noescape
func scaleAVX2(x *float32, a float32, n int)

//go:noescape
func scaleAVX512(x *float32, a float32, n int)

//go:noescape
func siluMulAVX2(out, gate, up *float32, n int)

//go:noescape
func siluMulAVX512(out, gate, up *float32, n int)

//go:noescape
func sumSquaresAVX2(x *float32, n int) float64

//go:noescape
func sumSquaresAVX512(x *float32, n int) float64

//go:noescape
func rmsScaleAVX2(out, x, w *float32, inv float32, n int)

//go:noescape
func rmsScaleAVX512(out, x, w *float32, inv float32, n int)

// elemASM is one level's element-wise assembly. Its methods are the
// kernelSet entries: whole vectors in assembly, the tail in Go.
type elemASM struct {
	lanes      int
	max        func(x *float32, n int) float32
	expSubSum  func(x *float32, m float32, n int) float32
	scale      func(x *float32, a float32, n int)
	silu       func(out, gate, up *float32, n int)
	sumSquares func(x *float32, n int) float64
	rmsScale   func(out, x, w *float32, inv float32, n int)
}

var (
	avx2Elem   = &elemASM{8, maxAVX2, expSubSumAVX2, scaleAVX2, siluMulAVX2, sumSquaresAVX2, rmsScaleAVX2}
	avx512Elem = &elemASM{16, maxAVX512, expSubSumAVX512, scaleAVX512, siluMulAVX512, sumSquaresAVX512, rmsScaleAVX512}
)

// softmax is softmaxGeneric with its three passes vectorised; x non-empty.
func (e *elemASM) softmax(x []float32) {
	n := len(x) &^ (e.lanes - 1)
	m := x[0]
	if n > 0 {
		m = e.max(&x[0], n)
	}
	m = maxGeneric(m, x[n:])
	var s float32
	if n > 0 {
		s = e.expSubSum(&x[0], m, n)
	}
	s += expSubSumGeneric(x[n:], m)
	inv := 1 / s
	if n > 0 {
		e.scale(&x[0], inv, n)
	}
	scaleGeneric(x[n:], inv)
}

// siluMul is siluMulGeneric on whole vectors; out may be gate.
func (e *elemASM) siluMul(out, gate, up []float32) {
	n := len(gate) &^ (e.lanes - 1)
	if n > 0 {
		e.silu(&out[0], &gate[0], &up[0], n)
	}
	siluMulGeneric(out[n:], gate[n:], up[n:])
}

// rmsNorm is rmsNormGeneric with both passes vectorised; x non-empty.
func (e *elemASM) rmsNorm(out, x, w []float32, eps float32) {
	n := len(x) &^ (e.lanes - 1)
	var ss float64
	if n > 0 {
		ss = e.sumSquares(&x[0], n)
	}
	inv := rmsInv(ss+sumSquaresGeneric(x[n:]), len(x), eps)
	if n > 0 {
		e.rmsScale(&out[0], &x[0], &w[0], inv, n)
	}
	rmsScaleGeneric(out[n:], x[n:], w[n:], inv)
}
