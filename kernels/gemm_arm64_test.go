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

// TestQ8MMLATile checks the SMMLA tile and its Go version against the
// float64 oracle of each lane (scales times the exact integer sums; the
// tile's four partial sums added), a row and a token paired with itself
// included.
func TestQ8MMLATile(t *testing.T) {
	t.Run(NEONI8MM.String(), func(t *testing.T) {
		if !Supported(NEONI8MM) {
			t.Skip("CPU lacks FEAT_I8MM")
		}
		r := rand.New(rand.NewPCG(8, 45))
		for _, nb := range []int{4, 8, 48} {
			w := randBlocks(r, Q8_0, 2, 32*nb)
			rows := [2][]byte{w[:34*nb], w[34*nb:]}
			var x [2][]int8
			for j := range 2 {
				x[j] = make([]int8, 32*nb)
				for c := range x[j] {
					x[j][c] = int8(r.IntN(255) - 127)
				}
			}
			ws, xs := make([]float32, 4*nb), make([]float32, 4*nb)
			for k := range ws {
				ws[k], xs[k] = float32(r.Float64()), float32(r.Float64())
			}
			for _, self := range []bool{false, true} {
				w1, x1 := rows[1], x[1]
				if self {
					w1, x1 = rows[0], x[0]
				}
				var asm, gov [16]float32
				gemmQ8MMLA(&asm[0], &rows[0][0], &w1[0], &x[0][0], &x1[0], &ws[0], &xs[0], nb)
				gemmQ8MMLAGo(&gov, [2][]byte{rows[0], w1}, [2][]int8{x[0], x1}, ws, xs, nb)
				for i := range 2 {
					for j := range 2 {
						wr, xj := [2][]byte{rows[0], w1}[i], [2][]int8{x[0], x1}[j]
						var want, mag float64
						for b := range nb {
							var s int64
							for c := range 32 {
								s += int64(int8(wr[34*b+2+c])) * int64(xj[32*b+c])
							}
							k := 4*b + 2*i + j
							p := float64(ws[k]) * float64(xs[k]) * float64(s)
							want, mag = want+p, mag+math.Abs(p)
						}
						tol := 2 * sumTol(nb) * mag
						for name, tile := range map[string]*[16]float32{"asm": &asm, "go": &gov} {
							l := 2*i + j
							got := float64(tile[l]) + float64(tile[4+l]) + float64(tile[8+l]) + float64(tile[12+l])
							if math.Abs(got-want) > tol {
								t.Errorf("%s nb=%d self=%v: row %d token %d = %v, float64 %v (tol %.3g)", name, nb, self, i, j, got, want, tol)
							}
						}
					}
				}
			}
		}
	})
}
