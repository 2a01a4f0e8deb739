package engine

import (
	"math"

	"loupe/kernels"
)

// ropeHalf rotates the heads of the T rows of x [T, heads·d] at positions
// pos0…, in half-split pairs (i, i+d/2) — the Hugging Face / NeoX layout,
// not interleaved neighbours (docs/spec/qwen2.md §3.4).
func (m *Model) ropeHalf(x []float32, heads, T, pos0 int) {
	d, half := m.cfg.HeadDim, m.cfg.HeadDim/2
	width := heads * d
	for t := range T {
		cos, sin := m.ropeRow(t, pos0, half)
		row := x[t*width : (t+1)*width]
		for o := 0; o < width; o += d {
			kernels.RoPE(row[o:o+d], cos, sin)
		}
	}
}

// ropeRow is the cos and sin [half] of row t of a forward call at
// positions pos0…; in a batched decode each row is its own sequence's
// next position (batch.go).
func (m *Model) ropeRow(t, pos0, half int) (cos, sin []float32) {
	pos, c, s := pos0+t, m.ropeCos, m.ropeSin
	if bt := m.batch; bt != nil {
		pos, c, s = bt.pos[t], bt.cos, bt.sin
	}
	return c[pos*half : (pos+1)*half], s[pos*half : (pos+1)*half]
}

// ropePartial rotates only the first rd = Config.RotaryDim dims of each
// head of the T rows of x [T, heads·d], in half-split pairs (i, i+rd/2);
// dims rd…d−1 pass through (partial_rotary_factor, Qwen3.5: 64 of 256).
func (m *Model) ropePartial(x []float32, heads, T, pos0 int) {
	d, rd := m.cfg.HeadDim, m.cfg.rotaryDim()
	half, width := rd/2, heads*d
	for t := range T {
		cos, sin := m.ropeRow(t, pos0, half)
		row := x[t*width : (t+1)*width]
		for o := 0; o < width; o += d {
			kernels.RoPE(row[o:o+rd], cos, sin)
		}
	}
}

// ropeMeta is RoPE for Q/K rows in Meta's interleaved layout (GGUF llama
// files, docs/spec/llama.md §3: the converter permuted each head's rows so that pair
// i is (2i, 2i+1)). It rotates pair (2i, 2i+1) by angle i and writes the
// result to (i, i+d/2): the heads leave in the Hugging Face half-split
// layout, bit for bit what ropeHalf gives on the unpermuted rows, so the KV
// cache, attention and probes see one layout whatever the file.
func (m *Model) ropeMeta(x []float32, heads, T, pos0 int) {
	d, half := m.cfg.HeadDim, m.cfg.HeadDim/2
	width := heads * d
	var stack [256]float32
	tmp := stack[:]
	if d > len(tmp) {
		tmp = make([]float32, d)
	}
	for t := range T {
		cos, sin := m.ropeRow(t, pos0, half)
		row := x[t*width : (t+1)*width]
		for o := 0; o < width; o += d {
			h := row[o : o+d]
			for i := range half { // un-interleave, then the half-split rotation
				tmp[i], tmp[i+half] = h[2*i], h[2*i+1]
			}
			copy(h, tmp[:d])
			kernels.RoPE(h, cos, sin)
		}
	}
}

// ropeInvFreq is inv_freq [d/2]: 1/θ^(2i/d), changed by rope_type llama3
// (docs/spec/llama.md §2, computed as transformers does) or divided by a GGUF file's
// rope_freqs factors (llama.cpp's ggml_rope_ext freq_factors).
func ropeInvFreq(c *Config) []float64 {
	d := c.rotaryDim()
	half := d / 2
	inv := make([]float64, half)
	for i := range inv {
		inv[i] = float64(float32(1 / math.Pow(c.RopeTheta, float64(2*i)/float64(d))))
		switch {
		case c.RopeLlama3 != nil:
			inv[i] = llama3InvFreq(c.RopeLlama3, inv[i])
		case i < len(c.RopeFreqFactors):
			inv[i] = float64(float32(inv[i]) / c.RopeFreqFactors[i])
		}
	}
	return inv
}

// llama3InvFreq applies rope_type llama3 to one inverse frequency: high
// frequencies unchanged, low ones divided by factor, a smooth blend between.
func llama3InvFreq(l *Llama3Rope, inv float64) float64 {
	wavelen := 2 * math.Pi / inv
	lowWL, highWL := l.OriginalMaxPositions/l.LowFreqFactor, l.OriginalMaxPositions/l.HighFreqFactor
	switch {
	case wavelen < highWL:
		return inv
	case wavelen > lowWL:
		return float64(float32(inv / l.Factor))
	}
	s := (l.OriginalMaxPositions/wavelen - l.LowFreqFactor) / (l.HighFreqFactor - l.LowFreqFactor)
	return float64(float32((1-s)*inv/l.Factor + s*inv))
}

// ropeTable fills cos/sin [C, d/2] for positions 0…C-1. As in the reference,
// inv_freq[i] = 1/θ^(2i/d) and angle = p·inv_freq are fp32 values (each
// rounded once from float64, ≤ 1 ulp from the reference's fp32 pow and
// product); cos and sin of that fp32 angle are taken in float64 and rounded.
func ropeTable(theta float64, d, C int) (cos, sin []float32) {
	return ropeTableFreq(ropeInvFreq(&Config{RopeTheta: theta, HeadDim: d}), C)
}

// ropeTableFreq is ropeTable for given inverse frequencies [d/2].
func ropeTableFreq(inv []float64, C int) (cos, sin []float32) {
	half := len(inv)
	cos, sin = make([]float32, C*half), make([]float32, C*half)
	for i := range half {
		invFreq := float32(inv[i])
		for p := range C {
			angle := float64(float32(float64(p) * float64(invFreq)))
			cos[p*half+i] = float32(math.Cos(angle))
			sin[p*half+i] = float32(math.Sin(angle))
		}
	}
	return cos, sin
}
