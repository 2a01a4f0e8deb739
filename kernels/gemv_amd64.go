//go:build amd64 && !purego

package kernels

// Stubs in gemv_amd64.s: out[i] = Σ_{c<n} w[i·ldw+c]·x[c] for i < 4, with n
// a multiple of 8 (AVX2) or 16 (AVX-512) and ldw in elements (0 allowed).

//go:noescape
func gemv4F32AVX2(out *float32, w *float32, ldw int, x *float32, n int)

//go:noescape
func gemv4BF16AVX2(out *float32, w *BF16, ldw int, x *float32, n int)

// Pair stubs (gemv_amd64.s explains the pairs): gemv4BF16Pair* as
// gemv4BF16*, n a multiple of 16 (AVX2) or 32 (AVX-512);
// gemvRowsBF16PairAVX2 rows ≥ 1 rows (stride ldw) one after the other from
// the even and odd halves of x, n a multiple of 16: out[r] =
// Σ_{j<n/2} w[r·ldw+2j]·xe[j] + w[r·ldw+2j+1]·xo[j], prefetching pf bytes
// ahead of what each step reads.

//go:noescape
func gemv4BF16PairAVX2(out *float32, w *BF16, ldw int, x *float32, n int)

//go:noescape
func gemv4BF16PairAVX512(out *float32, w *BF16, ldw int, x *float32, n int)

//go:noescape
func gemvRowsBF16PairAVX2(out *float32, rows int, w *BF16, ldw int, xe, xo *float32, n, pf int)

// gemvRows4BF16PairAVX512 is gemvRowsBF16PairAVX2 over four streams stride
// bytes apart (row k·rows + r at w + k·stride + r·2·ldw to out[k·rows + r]),
// prefetching pairAhead bytes ahead; gemvRows2BF16PairAVX2 over two.
//
//go:noescape
func gemvRows4BF16PairAVX512(out *float32, rows int, w *BF16, ldw int, xe, xo *float32, n, stride int)

//go:noescape
func gemvRows2BF16PairAVX2(out *float32, rows int, w *BF16, ldw int, xe, xo *float32, n, stride int)

//go:noescape
func gemv4F32AVX512(out *float32, w *float32, ldw int, x *float32, n int)

// gemv4F32StreamsAVX2 and gemv4F32StreamsAVX512 are gemv4F32's kernels for
// four rows ldw elements apart, each prefetched ahead of itself, the sums
// to out[0], out[os/4], out[2·os/4] and out[3·os/4].
//
// gemv4BF16PairStreamsAVX2 and gemv4BF16PairStreamsAVX512 are the same
// for gemv4BF16Pair's kernels.
//
//go:noescape
func gemv4BF16PairStreamsAVX2(out *float32, os int, w *BF16, ldw int, x *float32, n int)

//go:noescape
func gemv4BF16PairStreamsAVX512(out *float32, os int, w *BF16, ldw int, x *float32, n int)

//go:noescape
func gemv4F32StreamsAVX2(out *float32, os int, w *float32, ldw int, x *float32, n int)

//go:noescape
func gemv4F32StreamsAVX512(out *float32, os int, w *float32, ldw int, x *float32, n int)

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

func (v isa) gemv4BF16Pair(out *float32, w *BF16, ldw int, x *float32, n int) {
	if v == isaAVX512 {
		gemv4BF16PairAVX512(out, w, ldw, x, n)
	} else {
		gemv4BF16PairAVX2(out, w, ldw, x, n)
	}
}

func matVecBF16AVX2(out []float32, w []BF16, x []float32)   { matVecBF16By(isaAVX2, out, w, x) }
func matVecBF16AVX512(out []float32, w []BF16, x []float32) { matVecBF16By(isaAVX512, out, w, x) }
func matVecF32AVX2(out []float32, w []float32, x []float32) { matVecF32By(isaAVX2, out, w, x) }
func matVecF32AVX512(out []float32, w []float32, x []float32) {
	matVecF32By(isaAVX512, out, w, x)
}

// splitCols is the longest row matVecBF16By reads one row at a time: the
// even and odd halves of x (up to 64 KiB) live on the stack beside the
// weight stream. Longer rows go four at a time. pairAhead is how far ahead
// of the stream a one-row step prefetches.
//
// Rows of Qwen2.5-1.5B's ffn_down (8960 columns, 35 KiB of split x, more
// than L1 holds beside the stream) went four at a time until the weights
// were mapped on 2 MiB pages. On them, 1 thread, weights in anonymous
// 2 MiB pages (plain read 42 GB/s), 8960 × 1536 matrices: four rows at a
// time 32.6-32.8 GB/s, one row 34.1-34.8 (PREFETCHNTA the same, PREFETCHT1
// 30.5-30.9), two rows sharing x loads 27-28; pairAhead 8 KiB beat 2, 4
// and 16 KiB (22-29 GB/s). Every row in address order, one stream, wins.
// The hint is PREFETCHT0: on an Intel Xeon NTA halved the stream
// (gemv_amd64.s), and T0 at 8 KiB read as fast as a plain loop there.
const (
	splitCols = 16384
	pairAhead = 8192
)

// matVecBF16By runs the pair kernels over the first m = cols rounded down
// to two vector widths, then adds the column tail in Go.
func matVecBF16By(v isa, out []float32, w []BF16, x []float32) {
	cols := len(x)
	m := cols &^ (2*v.step() - 1)
	switch {
	case m == 0:
		matVecBF16Generic(out, w, x)
		return
	case m <= splitCols:
		matVecBF16Rows(v, out, w, x, m)
	default:
		matVecBF16Quads(v, out, w, x, m)
	}
	if m < cols {
		for r := range out {
			out[r] += dotBF16Generic(w[r*cols+m:r*cols+cols], x[m:])
		}
	}
}

// splitX sets xe[j] = x[2j] and xo[j] = x[2j+1] for j < len(xe).
func splitX(xe, xo, x []float32) {
	for j := range xe {
		xe[j], xo[j] = x[2*j], x[2*j+1]
	}
}

// matVecBF16Rows sets out[r] = Σ_{c<m} w[r·cols+c]·x[c], m ≤ splitCols,
// one row after the other, so the weights stream in address order as in a
// plain read loop. It runs the 8-lane kernel at both levels: a 16-lane
// twin (four lines a step) read as fast in a loop over one shape, but real
// decode of Qwen2.5-1.5B, 1 thread, went 31-33 GB/s with this one against
// 26-28 with the twin (gemv_amd64.s).
//
// The rows go as v.streams() streams, one per equal band of rows, and the
// 0…streams−1 rows left over as one: one core reads several streams far
// apart faster than one (on a Sapphire Rapids VM, 1 GiB: 10.3 GB/s as one
// stream, 12.9 as two, 14.4 as four). Every output keeps its bits.
func matVecBF16Rows(v isa, out []float32, w []BF16, x []float32, m int) {
	var xe, xo [splitCols / 2]float32
	splitX(xe[:m/2], xo[:m/2], x)
	cols, s := len(x), v.streams()
	q := len(out) / s
	if q > 0 {
		stride := 2 * q * cols // bytes between the streams
		if s == 4 {
			gemvRows4BF16PairAVX512(&out[0], q, &w[0], cols, &xe[0], &xo[0], m, stride)
		} else {
			gemvRows2BF16PairAVX2(&out[0], q, &w[0], cols, &xe[0], &xo[0], m, stride)
		}
	}
	if r := s * q; r < len(out) {
		gemvRowsBF16PairAVX2(&out[r], len(out)-r, &w[r*cols], cols, &xe[0], &xo[0], m, pairAhead)
	}
}

// streams is how many rows a decode kernel reads at once at level v: as
// many as its registers hold accumulators for.
func (v isa) streams() int {
	if v == isaAVX512 {
		return 4
	}
	return 2
}

// matVecBF16Quads is matVecBF16Rows four rows at a time, for rows longer
// than splitCols: one from each quarter of the rows, four streams. The
// last rows%4 rows run one at a time with ldw = 0 into a scratch quad, so
// out is never written past its end.
func matVecBF16Quads(v isa, out []float32, w []BF16, x []float32, m int) {
	cols, rows := len(x), len(out)
	q := rows / 4
	streams := gemv4BF16PairStreamsAVX2
	if v == isaAVX512 {
		streams = gemv4BF16PairStreamsAVX512
	}
	for r := range q {
		streams(&out[r], 4*q, &w[r*cols], q*cols, &x[0], m)
	}
	var quad [4]float32
	for r := 4 * q; r < rows; r++ {
		v.gemv4BF16Pair(&quad[0], &w[r*cols], 0, &x[0], m)
		out[r] = quad[0]
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
	// Four rows at a time, one from each quarter of the rows: four
	// streams far apart, as the bf16 and quantised decode kernels read.
	q := rows / 4
	streams := gemv4F32StreamsAVX2
	if v == isaAVX512 {
		streams = gemv4F32StreamsAVX512
	}
	for r := range q {
		streams(&out[r], 4*q, &w[r*cols], q*cols, &x[0], m)
	}
	var quad [4]float32
	for r := 4 * q; r < rows; r++ {
		v.gemv4F32(&quad[0], &w[r*cols], 0, &x[0], m)
		out[r] = quad[0]
	}
	if m < cols {
		for r := range out {
			out[r] += dotGeneric(w[r*cols+m:r*cols+cols], x[m:])
		}
	}
}
