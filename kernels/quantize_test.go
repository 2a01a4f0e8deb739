package kernels

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// Q8_0 against the spec's formula, byte for byte: d = max|x|/127 as f16,
// q = roundf(x·127/max|x|) (halves away from zero).
func TestQuantizeQ8_0Layout(t *testing.T) {
	x := make([]float32, 32)
	for i := range x {
		x[i] = float32(i-16) / 4 // max |x| = 4 at i = 0
	}
	x[3] = 0.5 * 4 / 127 * 3 // exactly 1.5 steps: rounds away from zero to 2
	b := make([]byte, 34)
	QuantizeRow(Q8_0, b, x)
	if got, want := binary.LittleEndian.Uint16(b), F32ToF16(4.0/127); got != want {
		t.Errorf("d = %#04x, want %#04x", got, want)
	}
	want := make([]byte, 34)
	copy(want, b[:2])
	for i, v := range x {
		want[2+i] = byte(int8(math.Round(float64(v * (127.0 / 4)))))
	}
	if !bytes.Equal(b, want) {
		t.Errorf("block\n%v, want\n%v", b, want)
	}
	if int8(b[2+3]) != 2 || int8(b[2]) != -127 {
		t.Errorf("q[3] = %d, q[0] = %d", int8(b[5]), int8(b[2]))
	}
}

// Q4_0 against ggml's reference: the largest magnitude (signed) maps to
// −8 and q = min(15, trunc(x/d + 8.5)).
func TestQuantizeQ4_0Layout(t *testing.T) {
	x := make([]float32, 32)
	x[5], x[20] = 2, -1 // max magnitude 2 → d = −0.25
	b := make([]byte, 18)
	QuantizeRow(Q4_0, b, x)
	if got := F16ToF32(binary.LittleEndian.Uint16(b)); got != -0.25 {
		t.Errorf("d = %v, want -0.25", got)
	}
	// x=0 → 8; x=2 → 2/−0.25 + 8.5 = 0.5 → 0; x=−1 → 12.5 → 12
	if b[2+5]&15 != 0 || b[2+4]>>4 != 12 || b[2+0]&15 != 8 {
		t.Errorf("nibbles %x", b[2:])
	}
}

// Quantise then widen: every weight within the stated bound of its
// format's step, and the packing of scales, mins and nibbles consistent
// with the reader (a packing bug gives errors of whole steps or more).
func TestQuantizeRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	// worst error per weight, as a fraction of the largest |x| of its
	// block: half a step of the format's grid plus the 6-bit (Q4_K) or
	// 8-bit (Q6_K) rounding of the sub-block scales.
	bound := map[Quant]float64{Q8_0: 0.6 / 127, Q4_0: 1.1 / 8, Q4K: 2.0 / 15, Q6K: 1.2 / 31, Q5K: 2.0 / 31}
	for _, q := range Quants() {
		cols := 4 * q.BlockLen()
		x := randF32(r, cols, 0)
		b := make([]byte, q.RowBytes(cols))
		QuantizeRow(q, b, x)
		y := make([]float32, cols)
		DequantRow(q, y, b)
		bl := q.BlockLen()
		var sumErr float64
		for i := 0; i < cols; i += bl {
			var amax float64
			for _, v := range x[i : i+bl] {
				amax = max(amax, math.Abs(float64(v)))
			}
			for j := i; j < i+bl; j++ {
				e := math.Abs(float64(y[j] - x[j]))
				sumErr += e
				if e > bound[q]*amax {
					t.Fatalf("%v: w[%d] = %v → %v, error %.3g > %.3g·%.3g", q, j, x[j], y[j], e, bound[q], amax)
				}
			}
		}
		t.Logf("%v: mean |error| %.4f for N(0,1) weights", q, sumErr/float64(cols))
	}
}
