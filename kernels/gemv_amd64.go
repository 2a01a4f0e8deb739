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

type (
	gemv4F32Func  func(out *float32, w *float32, ldw int, x *float32, n int)
	gemv4BF16Func func(out *float32, w *BF16, ldw int, x *float32, n int)
)

func matVecBF16AVX2(out []float32, w []BF16, x []float32) {
	matVecBF16By(gemv4BF16AVX2, 8, out, w, x)
}

func matVecBF16AVX512(out []float32, w []BF16, x []float32) {
	matVecBF16By(gemv4BF16AVX512, 16, out, w, x)
}

func matVecF32AVX2(out []float32, w []float32, x []float32) {
	matVecF32By(gemv4F32AVX2, 8, out, w, x)
}

func matVecF32AVX512(out []float32, w []float32, x []float32) {
	matVecF32By(gemv4F32AVX512, 16, out, w, x)
}

// matVecBF16By runs the 4-row kernel k over the first m = cols rounded down
// to the vector width vec, then adds the column tail in Go. The last
// rows%4 rows run one at a time with ldw = 0 into a scratch quad, so out is
// never written past its end.
func matVecBF16By(k gemv4BF16Func, vec int, out []float32, w []BF16, x []float32) {
	cols, rows := len(x), len(out)
	m := cols &^ (vec - 1)
	if m == 0 {
		matVecBF16Generic(out, w, x)
		return
	}
	var quad [4]float32
	r := 0
	for ; r+4 <= rows; r += 4 {
		k(&out[r], &w[r*cols], cols, &x[0], m)
	}
	for ; r < rows; r++ {
		k(&quad[0], &w[r*cols], 0, &x[0], m)
		out[r] = quad[0]
	}
	if m < cols {
		for r := range out {
			out[r] += dotBF16Generic(w[r*cols+m:r*cols+cols], x[m:])
		}
	}
}

// matVecF32By is matVecBF16By for float32 weights.
func matVecF32By(k gemv4F32Func, vec int, out []float32, w []float32, x []float32) {
	cols, rows := len(x), len(out)
	m := cols &^ (vec - 1)
	if m == 0 {
		matVecF32Generic(out, w, x)
		return
	}
	var quad [4]float32
	r := 0
	for ; r+4 <= rows; r += 4 {
		k(&out[r], &w[r*cols], cols, &x[0], m)
	}
	for ; r < rows; r++ {
		k(&quad[0], &w[r*cols], 0, &x[0], m)
		out[r] = quad[0]
	}
	if m < cols {
		for r := range out {
			out[r] += dotGeneric(w[r*cols+m:r*cols+cols], x[m:])
		}
	}
}
