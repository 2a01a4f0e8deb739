//go:build amd64 && !purego

package kernels

// Assembly stubs (vec_amd64.s). n is a multiple of the vector width (8 for
// AVX2, 16 for AVX-512); the reference loop is in each stub's doc comment
// in the .s file and in vec_generic.go.

//go:noescape
func dotAVX2(a, b *float32, n int) float32

//go:noescape
func dotAVX512(a, b *float32, n int) float32

//go:noescape
func axpyAVX2(y, x *float32, a float32, n int)

//go:noescape
func axpyAVX512(y, x *float32, a float32, n int)

//go:noescape
func addAVX2(y, x *float32, n int)

//go:noescape
func addAVX512(y, x *float32, n int)

// The slice wrappers run whole vectors in assembly and the tail in Go.

func dotAVX2Slice(a, b []float32) float32 {
	m := len(a) &^ 7
	var s float32
	if m > 0 {
		s = dotAVX2(&a[0], &b[0], m)
	}
	return s + dotGeneric(a[m:], b[m:])
}

func dotAVX512Slice(a, b []float32) float32 {
	m := len(a) &^ 15
	var s float32
	if m > 0 {
		s = dotAVX512(&a[0], &b[0], m)
	}
	return s + dotGeneric(a[m:], b[m:])
}

func axpyAVX2Slice(y []float32, a float32, x []float32) {
	m := len(y) &^ 7
	if m > 0 {
		axpyAVX2(&y[0], &x[0], a, m)
	}
	axpyGeneric(y[m:], a, x[m:])
}

func axpyAVX512Slice(y []float32, a float32, x []float32) {
	m := len(y) &^ 15
	if m > 0 {
		axpyAVX512(&y[0], &x[0], a, m)
	}
	axpyGeneric(y[m:], a, x[m:])
}

func addAVX2Slice(y, x []float32) {
	m := len(y) &^ 7
	if m > 0 {
		addAVX2(&y[0], &x[0], m)
	}
	addGeneric(y[m:], x[m:])
}

func addAVX512Slice(y, x []float32) {
	m := len(y) &^ 15
	if m > 0 {
		addAVX512(&y[0], &x[0], m)
	}
	addGeneric(y[m:], x[m:])
}
