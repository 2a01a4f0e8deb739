package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestFromFloat32Cases(t *testing.T) {
	for _, c := range []struct {
		name string
		in   uint32
		want BF16
	}{
		{"one", 0x3f800000, 0x3f80},
		{"tie down to even", 0x3f808000, 0x3f80},
		{"tie up to even", 0x3f818000, 0x3f82},
		{"above tie", 0x3f808001, 0x3f81},
		{"below tie", 0x3f807fff, 0x3f80},
		{"negative tie", 0xbf818000, 0xbf82},
		{"+0", 0x00000000, 0x0000},
		{"-0", 0x80000000, 0x8000},
		{"+inf", 0x7f800000, 0x7f80},
		{"-inf", 0xff800000, 0xff80},
		{"max float rounds to inf", 0x7f7fffff, 0x7f80},
		{"largest bf16 stays", 0x7f7f0000, 0x7f7f},
		{"subnormal tie to even 0", 0x00008000, 0x0000},
		{"subnormal tie to even 2", 0x00018000, 0x0002},
		{"subnormal rounds up", 0x0000ffff, 0x0001},
		{"subnormal to smallest normal", 0x007fffff, 0x0080},
	} {
		if got := FromFloat32(math.Float32frombits(c.in)); got != c.want {
			t.Errorf("%s: FromFloat32(%#08x) = %#04x, want %#04x", c.name, c.in, got, c.want)
		}
	}
}

func TestFromFloat32NaN(t *testing.T) {
	// A signalling NaN whose payload lives in the low half must not round
	// to infinity.
	for _, in := range []uint32{0x7fc00000, 0x7f800001, 0xff800001, 0x7fffffff, 0x7f80ffff} {
		got := FromFloat32(math.Float32frombits(in))
		if f := got.Float32(); f == f {
			t.Errorf("FromFloat32(%#08x) = %#04x, not a NaN", in, got)
		}
		if got&0x8000 != BF16(in>>16)&0x8000 {
			t.Errorf("FromFloat32(%#08x) = %#04x lost the sign", in, got)
		}
	}
}

// bf16Value returns the value of bf16 bits b in float64, reading the
// pattern just past the largest finite value (0x7f80) as 2^128, as IEEE
// rounding does when it decides overflow.
func bf16Value(b uint16) float64 {
	if b&0x7fff == 0x7f80 {
		if b&0x8000 != 0 {
			return -math.Ldexp(1, 128)
		}
		return math.Ldexp(1, 128)
	}
	return float64(math.Float32frombits(uint32(b) << 16))
}

// TestFromFloat32Oracle compares against nearest-with-ties-to-even decided
// in float64 over random bit patterns of every exponent.
func TestFromFloat32Oracle(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for range 200000 {
		u := r.Uint32()
		if u&0x7fffffff > 0x7f800000 {
			continue // NaN: TestFromFloat32NaN
		}
		f := float64(math.Float32frombits(u))
		lo := uint16(u >> 16)
		hi := lo + 1
		if u&0xffff == 0 {
			hi = lo
		}
		dl, dh := math.Abs(f-bf16Value(lo)), math.Abs(f-bf16Value(hi))
		want := lo
		if dh < dl || (dh == dl && lo&1 == 1) {
			want = hi
		}
		if got := FromFloat32(float32(f)); uint16(got) != want {
			t.Fatalf("FromFloat32(%#08x) = %#04x, want %#04x", u, got, want)
		}
	}
}

func TestToBF16ToFloat32(t *testing.T) {
	src := []float32{1, -2.5, 3.14159, float32(math.Inf(-1))}
	b := make([]BF16, len(src))
	f := make([]float32, len(src))
	ToBF16(b, src)
	ToFloat32(f, b)
	for i, v := range src {
		if b[i] != FromFloat32(v) || f[i] != b[i].Float32() {
			t.Errorf("element %d: ToBF16 %#04x, ToFloat32 %v", i, b[i], f[i])
		}
	}
}
