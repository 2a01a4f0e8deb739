package engine

// The named blocks every architecture file is written with: embedding,
// RMSNorm, projections, biases, residual adds, the SwiGLU MLP and the
// output head. Attention is in attention.go, RoPE in rope.go. Each block
// works on the rows of the current forward call in m.buf.

import (
	"context"
	"math"

	"loupe/kernels"
)

// embed starts a forward call of the tokens at pos0…: it sizes the buffers
// and the KV cache, then fills x [T, h] with embed_tokens rows (no scaling).
func (m *Model) embed(tokens []int, pos0 int) {
	T, h := len(tokens), m.cfg.HiddenSize
	m.ensureBuffers(T)
	m.ensureContext(pos0 + T)
	for t, id := range tokens {
		m.w.embed.row(m.buf.x[t*h:(t+1)*h], id)
	}
}

// rmsNorm: dst[t] = src[t] / rms(src[t]) ⊙ w for each of the T rows of
// width len(w) (docs/spec/qwen2.md §3.2, with the model's rms_norm_eps).
func (m *Model) rmsNorm(dst, src, w []float32, T int) {
	n, eps := len(w), float32(m.cfg.RMSNormEps)
	for t := range T {
		kernels.RMSNorm(dst[t*n:(t+1)*n], src[t*n:(t+1)*n], w, eps)
	}
}

// headNorm is RMSNorm applied to each head of the T rows of x [T, heads·d]
// over its own d values, in place, with one weight w [d] for all heads
// (Qwen3's QK-norm, docs/spec/qwen3.md §1 item 3).
func (m *Model) headNorm(x, w []float32, heads, T int) {
	m.rmsNorm(x, x, w, T*heads) // rows of width d; RMSNorm reads a row before writing it
}

// project: out [T, w.rows] = in [T, w.cols] · wᵀ, split over the workers.
// A batched decode's rows are written tokens: a bf16 matrix multiplies
// them with fp32 activations, as decode does, where a prompt's rows
// would be rounded to bf16 (batch.go).
func (m *Model) project(w *mat, out, in []float32, T int) {
	if m.batch != nil && w.bf != nil && w.roundsInput() {
		fp32 := *w
		fp32.exactIn = true
		w = &fp32
	}
	w.mul(m.pool, out, in, T, &m.buf.xq, &m.buf.rx, &m.buf.xr)
}

// projection is one matrix of projectAll and where its output goes.
type projection struct {
	w   *mat
	out []float32
}

// projectAll is project for several matrices that read the same input
// (q, k, v; gate, up). For one token (decode) their rows run as one
// parallel loop: one barrier where the caller waits for the slowest worker,
// instead of one per matrix (a decode step of Qwen2.5-1.5B ran 225 loops,
// 141 with q/k/v and gate/up together). Every output row is still one
// kernel call's dot product, so the results are project's.
func (m *Model) projectAll(in []float32, T int, ps ...projection) {
	if T > 1 {
		for _, p := range ps {
			m.project(p.w, p.out, in, T)
		}
		return
	}
	total := 0
	var xq *kernels.QuantizedX // the input rounded to 8 bits once, for all matrices with integer kernels
	for _, p := range ps {
		total += p.w.rows
		if xq == nil && p.w.integer() {
			xq = &m.buf.xq
			xq.Quantize(in[:p.w.cols])
		}
	}
	m.pool.For(total, func(_, lo, hi int) {
		off := 0
		for _, p := range ps {
			if a, b := max(lo, off), min(hi, off+p.w.rows); a < b {
				p.w.vecRowsX(p.out, in[:p.w.cols], xq, a-off, b-off)
			}
			off += p.w.rows
		}
	})
}

// addBias adds bias to each of the T rows of x (row width len(bias)).
func addBias(x, bias []float32, T int) {
	n := len(bias)
	for t := range T {
		kernels.Add(x[t*n:(t+1)*n], bias)
	}
}

// residual adds a block's output [T, h] to the residual stream x.
func (m *Model) residual(delta []float32, T int) {
	n := T * m.cfg.HiddenSize
	kernels.Add(m.buf.x[:n], delta[:n])
}

// swiGLU is the gated MLP over xn [T, h] (the normed residual), into
// ffnOut [T, h]: down(silu(gate(xn)) ⊙ up(xn)). silu(gate)·up [T, I] is
// what the MLP probe records.
func (m *Model) swiGLU(lw *layerWeights, l, T, pos0 int, pr *probes) {
	b, I := &m.buf, lw.wGate.rows
	m.projectAll(b.xn, T, projection{&lw.wGate, b.gate}, projection{&lw.wUp, b.up}) // ffn_gate, ffn_up [T, I]
	m.pool.For(T, func(_, lo, hi int) {                                             // 4.6 M exps per 512-token chunk of Qwen2.5-1.5B, ~0.8 ms on one core
		for t := lo; t < hi; t++ {
			g := b.gate[t*I : (t+1)*I]
			kernels.SiLUMul(g, g, b.up[t*I:(t+1)*I]) // silu(gate)·up, in place
		}
	})
	for t := range T {
		pr.captureMLP(l, pos0+t, b.gate[t*I:(t+1)*I])
	}
	m.project(&lw.wDown, b.ffnOut, b.gate, T) // ffn_out [T, h]
}

// outputHead applies the final norm and the output head (lm_head, or the
// embedding when tied) to the last row, or to all T rows when all is set:
// the head is a V × h product, the largest single matrix of small models,
// so prefill runs it for the one position whose logits are sampled.
func (m *Model) outputHead(T int, all bool) []float32 {
	h, V, b := m.cfg.HiddenSize, m.cfg.VocabSize, &m.buf
	first := T - 1
	if all {
		first = 0
	}
	rows := T - first
	if len(b.logits) < rows*V {
		b.logits = make([]float32, rows*V) // [rows, V]
	}
	m.rmsNorm(b.xn, b.x[first*h:], m.w.outNorm, rows) // result_norm [rows, h]
	m.project(&m.w.output, b.logits, b.xn, rows)      // result_output [rows, V]
	return b.logits[:rows*V]
}

// sigmoidGate: x ⊙ sigmoid(gate) over T rows of n (gated attention's
// output gate, before o_proj).
func (m *Model) sigmoidGate(x, gate []float32, T, n int) {
	m.pool.For(T, func(_, lo, hi int) {
		for i := lo * n; i < hi*n; i++ {
			x[i] *= float32(1 / (1 + math.Exp(-float64(gate[i]))))
		}
	})
}

// decoderStack is the forward pass every architecture shares around its
// own layer: x = embed_tokens[ids] [T, h], then each decoder layer over x
// followed by layerDone (the logit lens's probe: an architecture cannot
// forget it), then the final norm and the output head. It checks ctx
// between layers.
func (m *Model) decoderStack(ctx context.Context, tokens []int, pos0 int, pr *probes, layer func(m *Model, l, T, pos0 int, pr *probes)) ([]float32, error) {
	T := len(tokens)
	m.embed(tokens, pos0)
	for l := range m.w.layers {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		layer(m, l, T, pos0, pr)
		m.layerDone(l, T, pos0, pr)
	}
	return m.outputHead(T, pr != nil && pr.allLogits), nil
}

// layerDone ends decoder layer l over the T rows at pos0…: the residual
// stream x [T, h] is that layer's output. Every architecture calls it
// after each layer; the logit lens's probe copies x there.
func (m *Model) layerDone(l, T, pos0 int, pr *probes) {
	h := m.cfg.HiddenSize
	pr.captureResidual(l, pos0, m.buf.x[:T*h], h)
}
