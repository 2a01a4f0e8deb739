//go:build !purego

package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestVectorExpNEON sweeps the NEON exp (the same algorithm as the AVX one) over float32's whole exp range
// through expSubSum with m = 0 (exp(x − 0) = exp(x)): within 2 ulp where
// the result is normal and x < 127.5·ln2, within 2 of the smallest
// subnormal below, +0 from 2^-126.5 down (x < -126.5·ln2), +Inf from
// 127.5·ln2 ≈ 88.38 up, and exact at 0, ±Inf and NaN.
func TestVectorExpNEON(t *testing.T) {
	const (
		minNormal  = 0x1p-126
		flushBelow = -126.5 * math.Ln2
		infFrom    = 127.5 * math.Ln2
	)
	var xs []float32
	for x := float32(-104); x < 90; x += 0.000977 {
		xs = append(xs, x)
	}
	xs = xs[:len(xs)&^15]
	specials := []float32{0, -inf32, inf32, nan32, -88, 89, -87.68, 88.37, 88.38, -1e30, 1e30, 1, -1, 0x1p-30, -0x1p-30, -0.0}
	xs = append(xs, specials...)
	for _, l := range []Level{NEON} { // NEONDot runs the same code
		t.Run(l.String(), func(t *testing.T) {
			y := append([]float32(nil), xs...)
			expSubSumNEON(&y[0], 0, len(y))
			var worst float64
			for i, x := range xs {
				got, want := float64(y[i]), math.Exp(float64(x))
				switch {
				case x != x:
					if got == got {
						t.Fatalf("exp(NaN) = %v", got)
					}
				case float64(x) >= infFrom:
					if !math.IsInf(got, 1) {
						t.Fatalf("exp(%v) = %v, want +Inf", x, got)
					}
				case float64(x) < flushBelow:
					if got != 0 || math.Signbit(got) {
						t.Fatalf("exp(%v) = %v, want +0", x, got)
					}
				case want < minNormal:
					if d := math.Abs(got - want); !(d <= 2*0x1p-149) {
						t.Fatalf("exp(%v) = %v, want %v (error %.3g)", x, got, want, d)
					}
				default:
					d := math.Abs(got-want) / (0x1p-23 * want)
					worst = max(worst, d)
					if !(d <= 2) {
						t.Fatalf("exp(%v) = %v, want %v (%.2f ulp > 2)", x, got, want, d)
					}
				}
			}
			if y[len(xs)-len(specials)] != 1 {
				t.Fatalf("exp(0) = %v, want 1", y[len(xs)-len(specials)])
			}
			t.Logf("%v: worst error %.2f ulp over %d points", l, worst, len(xs))
		})
	}
}

// TestMaxNEON: Softmax's first pass must find the true maximum (a smaller
// m still normalises most rows, so the softmax tests alone would not see
// a lane left out), NaN anywhere winning.
func TestMaxNEON(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for _, n := range []int{8, 16, 24, 64, 1536} {
		for trial := range 50 {
			x := randF32(r, n, 0)
			want := math.Inf(-1)
			for _, v := range x {
				want = math.Max(want, float64(v))
			}
			if got := maxNEON(&x[0], n); float64(got) != want {
				t.Fatalf("n=%d trial %d: max = %v, want %v", n, trial, got, want)
			}
			x[r.IntN(n)] = nan32
			if got := maxNEON(&x[0], n); got == got {
				t.Fatalf("n=%d trial %d: max with a NaN = %v, want NaN", n, trial, got)
			}
		}
	}
}
