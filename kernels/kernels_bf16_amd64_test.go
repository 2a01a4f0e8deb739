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

// TestMatVecBF16Widths runs both bf16 decode kernels, the 8-lane and the
// 16-lane one, against the float64 oracle whichever of them the AVX-512
// levels pick on this CPU (bf16DecodeISA): each stays tested on Zen 4,
// where the levels use the 8-lane one, and elsewhere.
func TestMatVecBF16Widths(t *testing.T) {
	if !hasAVX2 {
		t.Skip("CPU lacks AVX2")
	}
	widths := []isa{isaAVX2}
	if hasAVX512 {
		widths = append(widths, isaAVX512)
	}
	r := rand.New(rand.NewPCG(41, 42))
	for _, v := range widths {
		for _, cols := range []int{32, 64, 1536, 8960, 16416} {
			for _, rows := range gemvRows {
				for _, off := range offsets {
					w := randBF16(r, rows*cols, off)
					x := randF32(r, cols, 3-off)
					out, check := guarded(t, rows, off)
					matVecBF16By(v, out, w, x)
					check()
					checkMatVec(t, out, f64BF16(w), f64(x), off)
				}
			}
		}
	}
}

// TestWidenQ4KBF16: the table-and-VPERMW widening of Q4_K rows to bf16
// gives, bit for bit, the AVX512-BF16 level's two steps it replaces in
// MatMulQBF16 (dequantQ4KAVX2, then roundBF16), on generated blocks and
// on blocks of random bytes (f16 scales that are NaN, infinite or
// subnormal among them).
func TestWidenQ4KBF16(t *testing.T) {
	if avx512bf16Set.widenQ4KBF16 == nil {
		t.Skip("CPU lacks AVX512_BF16 or BW")
	}
	r := rand.New(rand.NewPCG(43, 44))
	for _, cols := range []int{256, 1536, 8960} {
		rb := Q4K.RowBytes(cols)
		for _, raw := range []bool{false, true} {
			w := randBlocks(r, Q4K, 8, cols)
			if raw {
				for i := range w {
					w[i] = byte(r.Uint32())
				}
			}
			row, want, got := make([]float32, cols), make([]BF16, cols), make([]BF16, cols)
			for i := range 8 {
				src := w[i*rb : (i+1)*rb]
				dequantRowAVX2(Q4K, row, src)
				roundBF16(want, row)
				avx512bf16Set.widenQ4KBF16(got, src)
				for c := range got {
					if got[c] != want[c] {
						t.Fatalf("cols %d raw %v row %d column %d: %#04x, two steps %#04x", cols, raw, i, c, got[c], want[c])
					}
				}
			}
		}
	}
}
