//go:build !purego

package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBF16MMLATile checks the BFMMLA tile and its Go version against a
// float64 oracle: bf16 rows × bf16 tokens, every output where mmlaAt says,
// full strides and stride 0 (one row or token four times).
func TestBF16MMLATile(t *testing.T) {
	t.Run(NEONBF16.String(), func(t *testing.T) {
		if !Supported(NEONBF16) {
			t.Skip("CPU lacks FEAT_BF16")
		}
		r := rand.New(rand.NewPCG(7, 45))
		for _, k := range []int{8, 16, 64, 1536} {
			for _, st := range [][2]int{{k, k}, {0, k}, {k, 0}} {
				w, xb := randBF16(r, 4*k, 0), randBF16(r, 4*k, 0)
				var asm, gov [16]float32
				gemm4x4BF16MMLA(&asm[0], &w[0], st[0], &xb[0], st[1], k)
				gemm4x4BF16MMLAGo(&gov, w, st[0], xb, st[1], k)
				for i := range 4 {
					for j := range 4 {
						want, mag := dotBF16F64(w[i*st[0]:i*st[0]+k], xb[j*st[1]:j*st[1]+k])
						tol := 2 * sumTol(k) * mag
						for name, got := range map[string]float32{"asm": asm[mmlaAt(i, j)], "go": gov[mmlaAt(i, j)]} {
							if math.Abs(float64(got)-want) > tol {
								t.Errorf("%s k=%d strides %v: row %d token %d = %v, float64 %v (tol %.3g)",
									name, k, st, i, j, got, want, tol)
							}
						}
					}
				}
			}
		}
	})
}

// dotBF16F64 is Σ w[c]·x[c] in float64 and Σ |w[c]·x[c]|.
func dotBF16F64(w, x []BF16) (sum, mag float64) {
	for c := range w {
		p := float64(w[c].Float32()) * float64(x[c].Float32())
		sum, mag = sum+p, mag+math.Abs(p)
	}
	return sum, mag
}
