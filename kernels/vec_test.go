package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestDot(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(11, 12))
		for _, n := range sizes {
			for _, off := range offsets {
				a, b := randF32(r, n, off), randF32(r, n+2, 3-off)
				want, abs := dot64(f64(a), f64(b[:n]))
				within(t, fmt.Sprintf("Dot n=%d+%d", n, off), Dot(a, b), want, abs, sumTol(n))
			}
		}
	})
}

func TestAxpyAdd(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(13, 14))
		for _, n := range sizes {
			for _, off := range offsets {
				x := randF32(r, n+1, 3-off)
				y0 := randF32(r, n, 0)
				a := float32(r.NormFloat64())

				y, check := guarded(t, n, off)
				copy(y, y0)
				Axpy(y, a, x)
				check()
				for i := range n {
					// One fused or two rounded operations: within 2u of the sum's size.
					want := float64(y0[i]) + float64(a)*float64(x[i])
					abs := math.Abs(float64(y0[i])) + math.Abs(float64(a)*float64(x[i]))
					within(t, fmt.Sprintf("Axpy n=%d+%d y[%d]", n, off, i), y[i], want, abs, 2*u32)
				}

				copy(y, y0)
				Add(y, x)
				check()
				for i := range n {
					if want := y0[i] + x[i]; y[i] != want {
						t.Fatalf("Add n=%d+%d y[%d] = %v, want %v", n, off, i, y[i], want)
					}
				}
			}
		}
	})
}
