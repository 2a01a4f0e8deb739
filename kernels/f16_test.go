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

// F16 values from the IEEE binary16 definition (docs/spec/formats.md A.2).
func TestF16ToF32(t *testing.T) {
	cases := map[uint16]float64{
		0x0000: 0, 0x3c00: 1, 0xc000: -2, 0x3800: 0.5, 0x7bff: 65504,
		0x0001: math.Ldexp(1, -24), 0x03ff: 1023 * math.Ldexp(1, -24), 0x0400: math.Ldexp(1, -14),
		0x7c00: math.Inf(1), 0xfc00: math.Inf(-1), 0x3555: 0.333251953125,
	}
	for h, want := range cases {
		if got := F16ToF32(h); float64(got) != want {
			t.Errorf("F16ToF32(%#04x) = %g, want %g", h, got, want)
		}
	}
	if v := F16ToF32(0x7e00); !math.IsNaN(float64(v)) {
		t.Errorf("F16ToF32(NaN) = %g", v)
	}
	if v := F16ToF32(0x8000); !math.Signbit(float64(v)) || v != 0 {
		t.Errorf("F16ToF32(-0) = %g", v)
	}
}

// TestF16ToF32Every: every binary16 value against its definition in
// float64: ±m·2⁻²⁴ for exponent 0, ±Inf or NaN for 31, else
// ±(1 + m/1024)·2^(e−15).
func TestF16ToF32Every(t *testing.T) {
	for h := range 1 << 16 {
		e, m := h>>10&0x1f, float64(h&0x3ff)
		var want float64
		switch e {
		case 0:
			want = m * math.Ldexp(1, -24)
		case 31:
			want = math.Inf(1)
			if m != 0 {
				want = math.NaN()
			}
		default:
			want = (1 + m/1024) * math.Ldexp(1, e-15)
		}
		if h>>15 == 1 {
			want = -want
		}
		got := float64(F16ToF32(uint16(h)))
		if math.IsNaN(want) != math.IsNaN(got) || !math.IsNaN(want) && (got != want || math.Signbit(got) != math.Signbit(want)) {
			t.Fatalf("F16ToF32(%#04x) = %g, want %g", h, got, want)
		}
	}
}
