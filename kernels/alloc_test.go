package kernels

import "testing"

// TestNoAllocation: decode calls MatVec hundreds of times per token, so the
// products must not allocate (13 rows: a leftover row; 7 tokens: a
// leftover-token tile at every level; 24 tokens: packed panels).
func TestNoAllocation(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		out := make([]float32, 7*13)
		w := make([]BF16, 13*64)
		wf := make([]float32, 13*64)
		wh := make([]F16, 13*64)
		x := make([]float32, 7*64)
		big, xb := make([]float32, 24*13), make([]float32, 24*64)
		ws := NewWorkspace()
		MatMulBF16Into(ws, out, 13, w, x, 7, 64)
		MatMulBF16Into(ws, big, 13, w, xb, 24, 64)
		MatMulF16(ws, out, 13, wh, x, 7, 64)
		for name, f := range map[string]func(){
			"MatVecBF16":     func() { MatVecBF16(out[:13], w, x[:64]) },
			"MatVecF32":      func() { MatVecF32(out[:13], wf, x[:64]) },
			"MatVecF16":      func() { MatVecF16(out[:13], wh, x[:64]) },
			"MatMulF16":      func() { MatMulF16(ws, out, 13, wh, x, 7, 64) },
			"MatMulF32":      func() { MatMulF32(out, 13, wf, x, 7, 64) },
			"MatMulBF16Into": func() { MatMulBF16Into(ws, out, 13, w, x, 7, 64) },
			// 24 tokens: the AVX-512 broadcast path (packed panels)
			"MatMulBF16Into n24": func() { MatMulBF16Into(ws, big, 13, w, xb, 24, 64) },
		} {
			if a := testing.AllocsPerRun(10, f); a != 0 {
				t.Errorf("%s: %v allocations", name, a)
			}
		}
	})
}
