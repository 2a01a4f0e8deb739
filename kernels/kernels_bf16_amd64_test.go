//go:build amd64 && !purego

package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRoundBF16DP checks the hand-encoded VCVTNEPS2BF16 against FromFloat32:
// identical on normal numbers, infinities and ties; NaN stays NaN;
// subnormal inputs read as zero (the instruction's documented DAZ).
func TestRoundBF16DP(t *testing.T) {
	if !Supported(AVX512BF16) {
		t.Skip("CPU lacks AVX512_BF16")
	}
	r := rand.New(rand.NewPCG(23, 24))
	special := []uint32{0x3f808000, 0x3f818000, 0x7f7fffff, 0x7f800000, 0xff800000, 0, 0x80000000,
		0x7fc00000, 0x7f800001, 0x00008000, 0x807fffff, 0x00000001}
	src := make([]float32, 4096+3) // +3: the Go tail
	for i := range src {
		if i < len(special) {
			src[i] = math.Float32frombits(special[i])
		} else {
			src[i] = math.Float32frombits(r.Uint32())
		}
	}
	dst := make([]BF16, len(src)+1)
	dst[len(src)] = 0xdead
	roundBF16(dst[:len(src)], src)
	if dst[len(src)] != 0xdead {
		t.Fatal("guard cell overwritten")
	}
	for i, v := range src {
		u := math.Float32bits(v)
		got := dst[i]
		switch {
		case v != v:
			if f := got.Float32(); f == f {
				t.Fatalf("src %#08x: got %#04x, want a NaN", u, got)
			}
		case u&0x7f800000 == 0 && i < len(src)&^15: // subnormal, in the SIMD part
			if got != BF16(u>>16)&0x8000 {
				t.Fatalf("subnormal %#08x: got %#04x, want signed zero", u, got)
			}
		default:
			if want := FromFloat32(v); got != want {
				t.Fatalf("src %#08x: got %#04x, want %#04x", u, got, want)
			}
		}
	}
}
