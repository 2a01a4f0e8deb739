//go:build amd64 && !purego

package kernels

// Stubs in gemv_amd64.s: out[i] = Σ_{c<n} w[i·ldw+c]·x[c] for i < 4, with n
// a multiple of 8 (AVX2) or 16 (AVX-512) and ldw in elements (0 allowed).

//go:noescape
func gemv4F32AVX2(out *float32, w *float32, ldw int, x *float32, n int)

//go:noescape
func gemv4BF16AVX2(out *float32, w *BF16, ldw int, x *float32, n int)

//go:noescape
func gemv4F32AVX512(out *float32, w *float32, ldw int, x *float32, n int)

//go:noescape
func gemv4BF16AVX512(out *float32, w *BF16, ldw int, x *float32, n int)

// isa picks the vector width of the amd64 kernels. The drivers dispatch on
// it with a switch rather than through function values, so that pointers
// to their stack scratch reach the (noescape) assembly directly and
// nothing is allocated per call.
type isa int8

const (
	isaAVX2 isa = iota
	isaAVX512
)

// step is the number of float32 lanes in a vector.
func (v isa) step() int {
	if v == isaAVX512 {
		return 16
	}
	return 8
}

func (v isa) gemv4F32(out *float32, w *float32, ldw int, x *float32, n int) {
	if v == isaAVX512 {
		gemv4F32AVX512(out, w, ldw, x, n)
	} else {
		gemv4F32AVX2(out, w, ldw, x, n)
	}
}

func (v isa) gemv4BF16(out *float32, w *BF16, ldw int, x *float32, n int) {
	if v == isaAVX512 {
		gemv4BF16AVX512(out, w, ldw, x, n)
	} else {
		gemv4BF16AVX2(out, w, ldw, x, n)
	}
}

func matVecBF16AVX2(out []float32, w []BF16, x []float32)   { matVecBF16By(isaAVX2, out, w, x) }
func matVecBF16AVX512(out []float32, w []BF16, x []float32) { matVecBF16By(isaAVX512, out, w, x) }
func matVecF32AVX2(out []float32, w []float32, x []float32) { matVecF32By(isaAVX2, out, w, x) }
func matVecF32AVX512(out []float32, w []float32, x []float32) {
	matVecF32By(isaAVX512, out, w, x)
}

// matVecBF16By runs the 4-row kernel over the first m = cols rounded down
// to the vector width, then adds the column tail in Go. The last rows%4
// rows run one at a time with ldw = 0 into a scratch quad, so out is
// never written past its end.
func matVecBF16By(v isa, out []float32, w []BF16, x []float32) {
	cols, rows := len(x), len(out)
	m := cols &^ (v.step() - 1)
	if m == 0 {
		matVecBF16Generic(out, w, x)
		return
	}
	var quad [4]float32
	r := 0
	for ; r+4 <= rows; r += 4 {
		v.gemv4BF16(&out[r], &w[r*cols], cols, &x[0], m)
	}
	for ; r < rows; r++ {
		v.gemv4BF16(&quad[0], &w[r*cols], 0, &x[0], m)
		out[r] = quad[0]
	}
	if m < cols {
		for r := range out {
			out[r] += dotBF16Generic(w[r*cols+m:r*cols+cols], x[m:])
		}
	}
}

// matVecF32By is matVecBF16By for float32 weights.
func matVecF32By(v isa, out []float32, w []float32, x []float32) {
	cols, rows := len(x), len(out)
	m := cols &^ (v.step() - 1)
	if m == 0 {
		matVecF32Generic(out, w, x)
		return
	}
	var quad [4]float32
	r := 0
	for ; r+4 <= rows; r += 4 {
		v.gemv4F32(&out[r], &w[r*cols], cols, &x[0], m)
	}
	for ; r < rows; r++ {
		v.gemv4F32(&quad[0], &w[r*cols], 0, &x[0], m)
		out[r] = quad[0]
	}
	if m < cols {
		for r := range out {
			out[r] += dotGeneric(w[r*cols+m:r*cols+cols], x[m:])
		}
	}
}
