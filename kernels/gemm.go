package kernels

import "sync"

// MatMulBF16 computes out[t·ldOut+r] = Σ_c w[r·cols+c]·x[t·cols+c] for
// t < n and r < rows = len(w)/cols: Y = X·Wᵀ with X n × cols, W rows × cols.
// Workers pass a band of rows (w[r0·cols:], out[r0:]) with ldOut unchanged.
// cols == 0 leaves out untouched (rows is then undefined).
//
// It borrows a Workspace from a pool; MatMulBF16Into takes the caller's.
func MatMulBF16(out []float32, ldOut int, w []BF16, x []float32, n, cols int) {
	ws := workspaces.Get().(*Workspace)
	MatMulBF16Into(ws, out, ldOut, w, x, n, cols)
	workspaces.Put(ws)
}

// MatMulBF16Into is MatMulBF16 with caller-owned scratch memory: the
// activations rounded to bf16 (n × cols, AVX512BF16 level) and one widened
// or packed weight panel (AVX2 and AVX512 levels). Use one Workspace per
// goroutine; a nil ws borrows one from the pool.
func MatMulBF16Into(ws *Workspace, out []float32, ldOut int, w []BF16, x []float32, n, cols int) {
	if n <= 0 || cols <= 0 {
		return
	}
	if ws == nil {
		MatMulBF16(out, ldOut, w, x, n, cols)
		return
	}
	rows := len(w) / cols
	checkMatMul("MatMulBF16", len(out), ldOut, len(x), n, rows, cols)
	cur.matMulBF16(ws, out, ldOut, w[:rows*cols], x[:n*cols], n, cols)
}

// RoundedX holds a batch of activations x (n × cols) rounded to bf16 once
// for every band of rows of one MatMulBF16X, where the kernels in use
// multiply bf16 activations (AVX512BF16 under the fast arithmetic).
// MatMulBF16 rounds all of x in each call, so a product split into 16
// bands (two workers, eight chunks each) rounded x 16 times: 12 % of a
// 2-thread 512-token prefill's CPU time on the Qwen2.5-1.5B shapes.
type RoundedX struct {
	xb      []BF16
	n, cols int
	use     bool
}

// Prepare sizes r for x of n × cols and reports whether the kernels in
// use read it; when false, MatMulBF16X is MatMulBF16 and Round need not be
// called. Call it before the workers start, between kernel level changes.
func (r *RoundedX) Prepare(n, cols int) bool {
	r.n, r.cols = n, cols
	r.use = cur.matMulBF16X != nil && n > 1 && cols > 0
	if r.use {
		r.xb = grow(&r.xb, n*cols)
	}
	return r.use
}

// Round rounds rows lo…hi-1 of x (n × cols, as prepared) into r. Workers
// round disjoint rows; every row must be rounded before MatMulBF16X runs.
func (r *RoundedX) Round(x []float32, lo, hi int) {
	if r.use && lo < hi {
		roundRowsBF16(r.xb[lo*r.cols:hi*r.cols], x[lo*r.cols:hi*r.cols])
	}
}

// MatMulBF16X is MatMulBF16 reading the bf16 activations from r (prepared
// and rounded from the same x), so the bands of one product share them;
// an unprepared r, or one not used at this level, is MatMulBF16.
func MatMulBF16X(out []float32, ldOut int, w []BF16, x []float32, r *RoundedX, n, cols int) {
	if r == nil || !r.use || r.n != n || r.cols != cols || cur.matMulBF16X == nil {
		MatMulBF16(out, ldOut, w, x, n, cols)
		return
	}
	if n <= 0 || cols <= 0 {
		return
	}
	rows := len(w) / cols
	checkMatMul("MatMulBF16X", len(out), ldOut, len(x), n, rows, cols)
	ws := workspaces.Get().(*Workspace)
	cur.matMulBF16X(ws, out, ldOut, w[:rows*cols], x[:n*cols], r.xb[:n*cols], n, cols)
	workspaces.Put(ws)
}

// MatMulBF16Exact is MatMulBF16 with fp32 activations at every level: at
// AVX512BF16 it runs the AVX512 kernel (bf16 weights widened, activations
// as they are), for inputs whose bf16 rounding a model amplifies.
func MatMulBF16Exact(out []float32, ldOut int, w []BF16, x []float32, n, cols int) {
	if n <= 0 || cols <= 0 {
		return
	}
	rows := len(w) / cols
	checkMatMul("MatMulBF16Exact", len(out), ldOut, len(x), n, rows, cols)
	ws := workspaces.Get().(*Workspace)
	exactSet().matMulBF16(ws, out, ldOut, w[:rows*cols], x[:n*cols], n, cols)
	workspaces.Put(ws)
}

// exactSet is the kernel set in use, or, when that one rounds activations
// (AVX512BF16, NEONBF16), the one below it that does not.
func exactSet() *kernelSet {
	if !RoundsActivations(active) {
		return cur
	}
	return sets[exactLevel(active)]
}

// MatMulF32 is MatMulBF16 for float32 weights.
func MatMulF32(out []float32, ldOut int, w []float32, x []float32, n, cols int) {
	if n <= 0 || cols <= 0 {
		return
	}
	rows := len(w) / cols
	checkMatMul("MatMulF32", len(out), ldOut, len(x), n, rows, cols)
	cur.matMulF32(out, ldOut, w[:rows*cols], x[:n*cols], n, cols)
}

// checkMatMul panics on shapes that would read or write out of bounds: a
// programming error in the caller, never a property of the model file.
func checkMatMul(name string, lenOut, ldOut, lenX, n, rows, cols int) {
	switch {
	case lenX < n*cols:
		panic("kernels: " + name + ": x shorter than n·cols")
	case rows > 0 && ldOut < rows:
		panic("kernels: " + name + ": ldOut smaller than rows")
	case rows > 0 && lenOut < (n-1)*ldOut+rows:
		panic("kernels: " + name + ": out shorter than (n-1)·ldOut+rows")
	}
}

// Workspace is scratch memory for MatMulBF16Into (and, borrowed from the
// pool, for MatMulF32 and MatMulNN). It grows on demand and must not be
// shared between goroutines that run at the same time.
type Workspace struct {
	xb  []BF16    // n × cols activations rounded to bf16
	wf  []float32 // widened weight panel (8 × kc), or packed one (kcNN × 32)
	rb  []BF16    // 32 × kcNN bf16 rows of a partial panel, zero rows below
	rf  []float32 // the same for f32 rows, or MatMulNN's 12 × k tokens
	qf  []float32 // MatMulQ's widened rows (qPanel × cols)
	qb  []BF16    // MatMulQBF16's rows rounded to bf16 (qPanel × cols)
	xs  []float32 // MatVecQ's sums of x over 16 or 32 columns
	ob  []float32 // the AVX2 prefill's sums of one band of rows (n × (band+16))
	q8w []byte    // MatMulQ8Rows' panels of bytes (q8Chunk × cols)
	q8s []float32 // their scales (q8Chunk/8 × cols/2)
	q8o []float32 // a tile of rows past the matrix's end (tileTokens × 8)
}

// NewWorkspace returns an empty Workspace.
func NewWorkspace() *Workspace { return &Workspace{} }

func (ws *Workspace) bf16X(n int) []BF16 { return grow(&ws.xb, n) }

func (ws *Workspace) panel(n int) []float32 { return grow(&ws.wf, n) }

// grow returns (*s)[:n], reallocating *s first when it is too small.
func grow[E any](s *[]E, n int) []E {
	if cap(*s) < n {
		*s = make([]E, n)
	}
	return (*s)[:n]
}

var workspaces = sync.Pool{New: func() any { return NewWorkspace() }}
