package engine

import (
	"math"

	"loupe/kernels"
)

// ropeHalf rotates the heads of the T rows of x [T, heads·d] at positions
// pos0…, in half-split pairs (i, i+d/2) — the Hugging Face / NeoX layout,
// not interleaved neighbours (qwen2.md §3.4).
func (m *Model) ropeHalf(x []float32, heads, T, pos0 int) {
	d, half := m.cfg.HeadDim, m.cfg.HeadDim/2
	width := heads * d
	for t := range T {
		pos := pos0 + t
		cos := m.ropeCos[pos*half : (pos+1)*half]
		sin := m.ropeSin[pos*half : (pos+1)*half]
		row := x[t*width : (t+1)*width]
		for o := 0; o < width; o += d {
			kernels.RoPE(row[o:o+d], cos, sin)
		}
	}
}

// ropePartial rotates only the first rd = Config.RotaryDim dims of each
// head of the T rows of x [T, heads·d], in half-split pairs (i, i+rd/2);
// dims rd…d−1 pass through (partial_rotary_factor, Qwen3.5: 64 of 256).
func (m *Model) ropePartial(x []float32, heads, T, pos0 int) {
	d, rd := m.cfg.HeadDim, m.cfg.rotaryDim()
	half, width := rd/2, heads*d
	for t := range T {
		pos := pos0 + t
		cos := m.ropeCos[pos*half : (pos+1)*half]
		sin := m.ropeSin[pos*half : (pos+1)*half]
		row := x[t*width : (t+1)*width]
		for o := 0; o < width; o += d {
			kernels.RoPE(row[o:o+rd], cos, sin)
		}
	}
}

// ropeTable fills cos/sin [C, d/2] for positions 0…C-1. As in the reference,
// inv_freq[i] = 1/θ^(2i/d) and angle = p·inv_freq are fp32 values (each
// rounded once from float64, ≤ 1 ulp from the reference's fp32 pow and
// product); cos and sin of that fp32 angle are taken in float64 and rounded.
func ropeTable(theta float64, d, C int) (cos, sin []float32) {
	half := d / 2
	cos, sin = make([]float32, C*half), make([]float32, C*half)
	for i := range half {
		invFreq := float32(1 / math.Pow(theta, float64(2*i)/float64(d)))
		for p := range C {
			angle := float64(float32(float64(p) * float64(invFreq)))
			cos[p*half+i] = float32(math.Cos(angle))
			sin[p*half+i] = float32(math.Sin(angle))
		}
	}
	return cos, sin
}
