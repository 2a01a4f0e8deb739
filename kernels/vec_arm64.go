//go:build !purego

package kernels

// Stubs in gemv_arm64.s (tools/neonasm/gen.py): n a positive multiple of
// 16; the references are in vec_generic.go.

//go:noescape
func dotNEON(a, b *float32, n int) float32

//go:noescape
func axpyNEON(y, x *float32, a float32, n int)

//go:noescape
func addNEON(y, x *float32, n int)

// The slice wrappers run whole steps of 16 in assembly and the tail in Go.

func dotNEONSlice(a, b []float32) float32 {
	m := len(a) &^ 15
	var s float32
	if m > 0 {
		s = dotNEON(&a[0], &b[0], m)
	}
	return s + dotGeneric(a[m:], b[m:])
}

func axpyNEONSlice(y []float32, a float32, x []float32) {
	m := len(y) &^ 15
	if m > 0 {
		axpyNEON(&y[0], &x[0], a, m)
	}
	axpyGeneric(y[m:], a, x[m:])
}

func addNEONSlice(y, x []float32) {
	m := len(y) &^ 15
	if m > 0 {
		addNEON(&y[0], &x[0], m)
	}
	addGeneric(y[m:], x[m:])
}
