package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Shared test machinery: every level the CPU supports runs the same suite
// against float64 oracles; outputs sit between NaN guard cells.

// sizes is the style guide's sweep of vector lengths.
var sizes = []int{0, 1, 7, 15, 16, 17, 31, 64, 1536, 8960}

// offsets start slices misaligned by whole elements.
var offsets = []int{0, 1, 3}

const (
	u32   = 1.0 / (1 << 24) // unit roundoff of float32
	guard = 0x7fc0dead      // NaN payload of guard cells
	pad   = 5               // guard cells on each side
)

// forEachLevel runs f once per level, with that level active, skipping the
// levels this CPU cannot run.
func forEachLevel(t *testing.T, f func(t *testing.T, l Level)) {
	t.Helper()
	prev := Active()
	defer SetLevel(prev)
	for _, l := range Levels() {
		t.Run(l.String(), func(t *testing.T) {
			if !Supported(l) {
				t.Skipf("CPU or build lacks %v", l)
			}
			if err := SetLevel(l); err != nil {
				t.Fatal(err)
			}
			f(t, l)
		})
	}
}

// sumTol is the accumulation error allowed relative to Σ|terms|: blocked
// and sequential fp32 sums of random-sign terms stay within a few u·√n
// (the worst case n·u would hide a dropped term of an 8960-long sum).
func sumTol(n int) float64 { return (4*math.Sqrt(float64(n)) + 16) * u32 }

// guarded returns a slice of n elements at offset off inside a buffer whose
// other cells hold the guard NaN, and a check that they are untouched.
func guarded(t *testing.T, n, off int) ([]float32, func()) {
	buf := make([]float32, off+n+2*pad)
	g := math.Float32frombits(guard)
	for i := range buf {
		buf[i] = g
	}
	s := buf[pad+off : pad+off+n : pad+off+n]
	check := func() {
		t.Helper()
		for i, v := range buf {
			if i >= pad+off && i < pad+off+n {
				continue
			}
			if math.Float32bits(v) != guard {
				t.Fatalf("guard cell %d of %d overwritten: %v", i-pad-off, n, v)
			}
		}
	}
	return s, check
}

func randF32(r *rand.Rand, n, off int) []float32 {
	s := make([]float32, n+off)[off:]
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}

func randBF16(r *rand.Rand, n, off int) []BF16 {
	s := make([]BF16, n+off)[off:]
	for i := range s {
		s[i] = FromFloat32(float32(r.NormFloat64()))
	}
	return s
}

// bf16Exact rounds x in place to bf16 values, so a kernel that rounds
// activations to bf16 sees them unchanged.
func bf16Exact(x []float32) {
	for i, v := range x {
		x[i] = FromFloat32(v).Float32()
	}
}

// dot64 returns Σ a[i]·b[i] and Σ|a[i]·b[i]| in float64.
func dot64(a, b []float64) (s, abs float64) {
	for i, v := range a {
		s += v * b[i]
		abs += math.Abs(v * b[i])
	}
	return s, abs
}

func f64(x []float32) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(v)
	}
	return y
}

func f64BF16(x []BF16) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(v.Float32())
	}
	return y
}

// within fails unless got is within tol·abs of want.
func within(t *testing.T, what string, got float32, want, abs, tol float64) {
	t.Helper()
	if d := math.Abs(float64(got) - want); !(d <= tol*abs) {
		t.Fatalf("%s = %v, want %v (error %.3g > %.3g·Σ|terms| = %.3g)", what, got, want, d, tol, tol*abs)
	}
}
