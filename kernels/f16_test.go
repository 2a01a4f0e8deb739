package kernels

import (
	"math"
	"testing"
)

// Every finite binary16 value survives F16ToF32 → F32ToF16, and the
// midpoints between neighbours round to the even one.
func TestF16RoundTrip(t *testing.T) {
	for h := range 0x10000 {
		x := F16ToF32(uint16(h))
		if math.IsNaN(float64(x)) {
			if g := F32ToF16(x); g&0x7c00 != 0x7c00 || g&0x3ff == 0 {
				t.Fatalf("NaN %#04x → %#04x", h, g)
			}
			continue
		}
		if g := F32ToF16(x); g != uint16(h) {
			t.Fatalf("%#04x → %v → %#04x", h, x, g)
		}
		if h&0x7fff >= 0x7bff { // largest finite and beyond: no next neighbour
			continue
		}
		next := F16ToF32(uint16(h + 1))
		mid := float32((float64(x) + float64(next)) / 2)
		want := uint16(h)
		if h&1 == 1 {
			want = uint16(h + 1)
		}
		if g := F32ToF16(mid); g != want {
			t.Fatalf("midpoint of %#04x and %#04x (%v) → %#04x, want %#04x", h, h+1, mid, g, want)
		}
		above := math.Nextafter32(mid, next)
		if g := F32ToF16(above); g != uint16(h+1) {
			t.Fatalf("just past the midpoint of %#04x (%v) → %#04x", h, above, g)
		}
	}
	if F32ToF16(70000) != 0x7c00 || F32ToF16(-1e-9) != 0x8000 {
		t.Error("overflow or underflow")
	}
}
