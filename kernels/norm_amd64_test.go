//go:build amd64 && !purego

package kernels

import (
	"math"
	"testing"
)

// TestVectorExp sweeps the assembly exp over float32's whole exp range
// through expSubSum with m = 0 (exp(x − 0) = exp(x)): within 2 ulp where
// the result is normal and x < 127.5·ln2, within 2 of the smallest
// subnormal below, +0 from 2^-126.5 down (x < -126.5·ln2), +Inf from
// 127.5·ln2 ≈ 88.38 up, and exact at 0, ±Inf and NaN.
func TestVectorExp(t *testing.T) {
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
	for _, l := range []Level{AVX2, AVX512} {
		t.Run(l.String(), func(t *testing.T) {
			if !Supported(l) {
				t.Skipf("CPU lacks %v", l)
			}
			y := append([]float32(nil), xs...)
			expSubSum := map[Level]func(*float32, float32, int) float32{AVX2: expSubSumAVX2, AVX512: expSubSumAVX512}[l]
			expSubSum(&y[0], 0, len(y))
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
