package kernels

// F16 is an IEEE binary16 number, as F16 files (GGUF type 1, safetensors
// "F16") store their weights: used in place, widened exactly in registers.
type F16 uint16

// Float32 widens h exactly.
func (h F16) Float32() float32 { return F16ToF32(uint16(h)) }

// MatVecF16 is MatVecBF16 for f16 weights: out[r] = Σ_c w[r·cols+c]·x[c]
// for r < len(out), cols = len(x), each weight widened exactly to f32 and
// multiplied by x unrounded. Decode's loop for F16 files: it reads the
// file's 2 bytes a weight, as the bf16 kernels do, where a copy widened
// at load would read 4.
func MatVecF16(out []float32, w []F16, x []float32) {
	if len(w) < len(out)*len(x) {
		panic("kernels: MatVecF16: w too short")
	}
	mv := cur.matVecF16
	if mv == nil {
		mv = matVecF16Generic
	}
	mv(out, w[:len(out)*len(x)], x)
}

// F16Native reports whether the active level multiplies f16 weights in
// place at memory speed (x86-64 from AVX2: F16C's VCVTPH2PS; arm64:
// FCVTL). Where it does not (the Go reference), the engine widens F16
// matrices to f32 copies at load, which the f32 kernels stream.
func F16Native() bool { return cur.matVecF16 != nil }

// matVecF16Generic is the readable reference of MatVecF16.
func matVecF16Generic(out []float32, w []F16, x []float32) {
	cols := len(x)
	for r := range out {
		out[r] = dotF16Generic(w[r*cols:r*cols+cols], x)
	}
}

// dotF16Generic returns Σ w[i]·x[i] over len(w), widening each weight.
func dotF16Generic(w []F16, x []float32) float32 {
	var s float32
	for i, v := range w {
		s += v.Float32() * x[i]
	}
	return s
}

// WidenF16 sets dst[i] = src[i] widened exactly, for i < len(src).
func WidenF16(dst []float32, src []F16) {
	if len(dst) < len(src) {
		panic("kernels: WidenF16: dst too short")
	}
	widenF16(dst[:len(src)], src)
}

func widenF16(dst []float32, src []F16) {
	if cur.widenF16 != nil {
		cur.widenF16(dst, src)
		return
	}
	widenF16Generic(dst, src)
}

// widenF16Generic is the readable reference of WidenF16.
func widenF16Generic(dst []float32, src []F16) {
	for i, v := range src {
		dst[i] = v.Float32()
	}
}

// MatMulF16 is MatMulF32 for f16 weights: out[t·ldOut+r] = Σ_c
// W[r][c]·x[t·cols+c] for t < n, every product in fp32. Prefill is
// compute-bound, so the weights are widened qPanel rows at a time into
// ws (nil: one borrowed) and multiplied by the f32 kernel: each weight is
// widened once per call and used n times. The panels start at multiples
// of qPanel, so a row's sum does not depend on the band it comes in.
func MatMulF16(ws *Workspace, out []float32, ldOut int, w []F16, x []float32, n, cols int) {
	if n <= 0 || cols <= 0 {
		return
	}
	rows := len(w) / cols
	checkMatMul("MatMulF16", len(out), ldOut, len(x), n, rows, cols)
	if ws == nil {
		ws = workspaces.Get().(*Workspace)
		defer workspaces.Put(ws)
	}
	panel := grow(&ws.qf, qPanel*cols)
	for r0 := 0; r0 < rows; r0 += qPanel {
		p := min(qPanel, rows-r0)
		WidenF16(panel, w[r0*cols:(r0+p)*cols])
		MatMulF32(out[r0:], ldOut, panel[:p*cols], x[:n*cols], n, cols)
	}
}
