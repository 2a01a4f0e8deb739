package engine

// Qwen3.5 (docs/spec/qwen35.md), top to bottom: a hybrid pre-norm decoder. Every
// layer mixes tokens one of two ways, then runs a SwiGLU MLP:
//
//   - linear_attention (3 of every 4 layers of the 2B): Gated DeltaNet, a
//     recurrence with a fixed-size state per head instead of a KV cache;
//   - full_attention (every 4th): grouped-query softmax attention whose
//     output is gated by a sigmoid, with per-head q/k RMSNorm and RoPE on
//     only the first 64 of 256 dims.
//
// What differs from Qwen2 besides the mixers: RMSNorm weights are stored
// centred on 0 and scale by 1 + w (added once at load, below), there are
// no biases, and the checkpoint is a vision-language one whose vision
// tower and multi-token-prediction head this text engine skips.
//
// Notation: h hidden, H query heads, KV key/value heads, d head_dim, T
// tokens in this call; DeltaNet sizes as in deltanet.go.

import (
	"context"
	"fmt"
	"math"
	"strings"

	"loupe/engine/deltanet"
)

func init() {
	register("Qwen3_5ForConditionalGeneration", "qwen3_5", qwen35{})
	register("Qwen3_5ForCausalLM", "qwen3_5_text", qwen35{})
	registerGGUF("qwen35", "Qwen3_5ForCausalLM")
}

// ggufPartialRope: RoPE turns 64 of each head's 256 dims.
func (qwen35) ggufPartialRope() {}

// ggufConfig reads llama.cpp's qwen35.* keys of the hybrid stack
// (docs/spec/qwen35.md §6): every full_attention_interval-th layer has
// attention; ssm.group_count n_k, ssm.time_step_rank n_v, ssm.state_size
// d_k, ssm.inner_size n_v·d_v, ssm.conv_kernel K; value heads tiled.
func (qwen35) ggufConfig(r *ggufReader, c *Config) error {
	n := r.int("full_attention_interval", 1, 512, 4)
	d := deltanet.Dims{NK: r.int("ssm.group_count", 1, 4096, -1), NV: r.int("ssm.time_step_rank", 1, 4096, -1),
		DK: r.int("ssm.state_size", 1, 4096, -1), Conv: r.int("ssm.conv_kernel", 1, 64, -1), Tiled: true}
	inner := r.int("ssm.inner_size", 1, 1<<24, -1)
	if r.err != nil {
		return r.err
	}
	if inner%d.NV != 0 || d.NV%d.NK != 0 {
		return fmt.Errorf("%w: %s: ssm.inner_size %d, time_step_rank %d and group_count %d do not divide", ErrBadFile, r.f.Path, inner, d.NV, d.NK)
	}
	d.DV = inner / d.NV
	q := &Qwen35Config{Linear: d, LayerTypes: make([]string, c.NumHiddenLayers)}
	for i := range q.LayerTypes {
		q.LayerTypes[i] = LinearAttention
		if (i+1)%n == 0 {
			q.LayerTypes[i] = FullAttention
		}
	}
	if c.RotaryDim == 0 {
		c.RotaryDim = c.HeadDim
	}
	q.PartialRotaryFactor = float64(c.RotaryDim) / float64(c.HeadDim)
	c.Qwen35 = q
	return nil
}

type qwen35 struct{}

func (qwen35) forward(ctx context.Context, m *Model, tokens []int, pos0 int, pr *probes) ([]float32, error) {
	return hybridForward(ctx, m, tokens, pos0, pr, qwen35Layer)
}

// hybridForward runs the layers of a hybrid stack (Qwen3.5, Qwen3.5-MoE),
// each by layer, with the DeltaNet state of the sequence.
func hybridForward(ctx context.Context, m *Model, tokens []int, pos0 int, pr *probes, layer func(m *Model, l, T, pos0 int, pr *probes)) ([]float32, error) {
	if m.recur == nil {
		m.recur = newRecurrentState(&m.cfg)
	}
	if pos0 == 0 && m.batch == nil { // a new sequence: the DeltaNet states start at zero (a batch's rows keep their own)
		m.recur.reset()
	}
	m.recur.ensure(&m.cfg, len(tokens), m.pool.Threads())
	return m.decoderStack(ctx, tokens, pos0, pr, layer) // final norm (1 + w), tied lm_head
}

// qwen35Layer is one decoder layer over the residual stream x [T, h].
func qwen35Layer(m *Model, l, T, pos0 int, pr *probes) {
	lw, b := &m.w.layers[l], &m.buf
	m.rmsNorm(b.xn, b.x, lw.attnNorm, T) // attn_norm [T, h]
	if lw.linear != nil {
		qwen35DeltaNet(m, l, T, pos0, pr) // attn_out [T, h]
	} else {
		qwen35Attention(m, l, T, pos0, pr)
	}
	m.residual(b.attnOut, T) // ffn_inp = x + attn_out

	m.rmsNorm(b.xn, b.x, lw.ffnNorm, T) // ffn_norm [T, h]
	m.swiGLU(lw, l, T, pos0, pr)        // ffn_out [T, h]
	m.residual(b.ffnOut, T)             // x = ffn_inp + ffn_out
}

// qwen35Attention is the gated attention of docs/spec/qwen35.md §4 into attn_out.
func qwen35Attention(m *Model, l, T, pos0 int, pr *probes) {
	lw, b, s := &m.w.layers[l], &m.buf, m.recur
	H, KV, d := m.cfg.NumAttentionHeads, m.cfg.NumKeyValueHeads, m.cfg.HeadDim
	m.projectAll(b.xn, T, projection{&lw.wq, s.qg}, projection{&lw.wk, b.k}, projection{&lw.wv, b.v}) // Qcur_full [T, H·2d], Kcur, Vcur [T, KV·d]
	splitQueryGate(b.q, s.gate, s.qg, H, d, T)                                                        // Qcur [T, H·d], gate [T, H·d]: per head, query ‖ gate
	m.headNorm(b.q, lw.qNorm, H, T)                                                                   // q_norm of each head (scale 1 + w)
	m.headNorm(b.k, lw.kNorm, KV, T)                                                                  // k_norm
	m.ropePartial(b.q, H, T, pos0)                                                                    // rotate dims 0…63 of each head; 64…255 pass
	m.ropePartial(b.k, KV, T, pos0)
	m.attention(l, T, pos0, pr)            // kqv_out [T, H·d]: GQA over the cache
	m.sigmoidGate(b.kqv, s.gate, T, H*d)   // kqv_out ⊙ sigmoid(gate)
	m.project(&lw.wo, b.attnOut, b.kqv, T) // attn_out [T, h]
}

// splitQueryGate de-interleaves q_proj's output: head j's 2d values are
// its query, then its gate (not all queries, then all gates).
func splitQueryGate(q, gate, qg []float32, H, d, T int) {
	for t := range T * H {
		copy(q[t*d:(t+1)*d], qg[2*t*d:(2*t+1)*d])
		copy(gate[t*d:(t+1)*d], qg[(2*t+1)*d:(2*t+2)*d])
	}
}

// qwen35DeltaNet is the Gated DeltaNet of docs/spec/qwen35.md §5 into attn_out.
func qwen35DeltaNet(m *Model, l, T, pos0 int, pr *probes) {
	dn, b, s := m.w.layers[l].linear, &m.buf, m.recur
	m.projectAll(b.xn, T, projection{&dn.wQKV, s.mixed}, projection{&dn.wZ, s.z}, // mixed_qkv [T, C], z [T, n_v·d_v]
		projection{&dn.wB, s.b}, projection{&dn.wA, s.a}) // b, a [T, n_v]
	m.causalConv(l, T)                        // conv [T, C] = silu(causal conv over the last K tokens)
	m.deltaGates(l, T, pos0, pr)              // g, β [T, n_v]; q, k L2-normalised per head
	m.deltaRule(l, T, pos0, pr)               // core [T, n_v·d_v]: S ← αS + k·β(v − Sᵀk)ᵀ, o = Sᵀq
	m.gatedNorm(l, T)                         // core = norm(core) ⊙ silu(z), per head
	m.project(&dn.wOut, b.attnOut, s.core, T) // attn_out [T, h]
}

// loadLayers views the tensors of docs/spec/qwen35.md §4–§6 under the decoder's
// prefix ("model.language_model." or "model."), adding 1 to the
// zero-centred norm weights once.
func (qwen35) loadLayers(ld *loader, cfg Config) []layerWeights {
	h, I := cfg.HiddenSize, cfg.IntermediateSize
	layers := make([]layerWeights, cfg.NumHiddenLayers)
	for i := range layers {
		p := fmt.Sprintf("%slayers.%d.", ld.prefix, i)
		lw := &layers[i]
		loadHybridMixer(ld, cfg, i, lw)
		lw.wGate = ld.matrix(p+"mlp.gate_proj.weight", I, h)
		lw.wUp = ld.matrix(p+"mlp.up_proj.weight", I, h)
		lw.wDown = ld.matrix(p+"mlp.down_proj.weight", h, I)
	}
	ld.notUsed = qwen35Skipped(ld)
	return layers
}

// loadHybridMixer views layer i's two norms (1 + w) and its token mixer:
// gated attention or Gated DeltaNet, as layer_types says.
func loadHybridMixer(ld *loader, cfg Config, i int, lw *layerWeights) {
	h := cfg.HiddenSize
	p := fmt.Sprintf("%slayers.%d.", ld.prefix, i)
	lw.attnNorm = ld.centredNorm(p+"input_layernorm.weight", h)
	lw.ffnNorm = ld.centredNorm(p+"post_attention_layernorm.weight", h)
	if cfg.Qwen35.LayerTypes[i] == FullAttention {
		loadGatedAttention(ld, cfg, p+"self_attn.", lw)
	} else {
		lw.linear = loadDeltaNet(ld, cfg, p+"linear_attn.")
	}
}

func loadGatedAttention(ld *loader, cfg Config, p string, lw *layerWeights) {
	h, d := cfg.HiddenSize, cfg.HeadDim
	qDim, kvDim := cfg.NumAttentionHeads*d, cfg.NumKeyValueHeads*d
	lw.wq = ld.matrix(p+"q_proj.weight", 2*qDim, h) // query ‖ gate per head
	lw.wk = ld.matrix(p+"k_proj.weight", kvDim, h)
	lw.wv = ld.matrix(p+"v_proj.weight", kvDim, h)
	lw.wo = ld.matrix(p+"o_proj.weight", h, qDim)
	lw.qNorm = ld.centredNorm(p+"q_norm.weight", d)
	lw.kNorm = ld.centredNorm(p+"k_norm.weight", d)
}

func loadDeltaNet(ld *loader, cfg Config, p string) *deltaNetWeights {
	h, dm := cfg.HiddenSize, cfg.Qwen35.Linear
	C, vd := dm.ConvDim(), dm.ValueDim()
	dn := &deltaNetWeights{
		wQKV:   ld.matrix(p+"in_proj_qkv.weight", C, h),
		wZ:     ld.matrix(p+"in_proj_z.weight", vd, h),
		wB:     ld.matrix(p+"in_proj_b.weight", dm.NV, h),
		wA:     ld.matrix(p+"in_proj_a.weight", dm.NV, h),
		dtBias: ld.vector(p+"dt_bias", dm.NV),
		aLog:   ld.aLog(p, dm.NV),
		norm:   ld.vector(p+"norm.weight", dm.DV), // plain scale: not 1 + w
		wOut:   ld.matrix(p+"out_proj.weight", h, vd),
	}
	// in_proj_qkv's activations stay fp32 at every kernel level. Its q and
	// k are L2-normalised per head and its output o = Sᵀq is RMS-normalised
	// per head: a head whose o is small (a decayed state, a query nearly
	// orthogonal to the stored keys) turns the absolute error that bf16
	// rounding of the input puts into q, k and v into a relative one, and
	// the norm scales it back to full size. Measured on the tiny test model
	// (one layer, only this input rounded): 5.3e-3 RMS relative error in the
	// normed core against 4e-4 to 1.8e-3 for each other input; the whole
	// model's logits 0.11 of their range against 0.027 with it in fp32. The
	// matrix is a fifth of a DeltaNet layer's prefill products.
	dn.wQKV.exactIn = true
	if w := ld.array(p+"conv1d.weight", C, 1, dm.Conv); w != nil {
		dn.convT = deltanet.TransposeConv(w, dm.Conv, C)
	}
	return dn
}

// loadFinalNorm reads model.norm.weight, zero-centred like the others.
func (qwen35) loadFinalNorm(ld *loader, cfg Config) []float32 {
	return ld.centredNorm(ld.prefix+"norm.weight", cfg.HiddenSize)
}

// centredNorm reads a zero-centred norm weight as its scale 1 + w: added
// here for Hugging Face files, already added by llama.cpp's converter in
// GGUF files (docs/spec/qwen35.md §3).
func (ld *loader) centredNorm(name string, n int) []float32 {
	if ld.gguf {
		return ld.vector(name, n)
	}
	return onePlus(ld.vector(name, n))
}

// aLog reads A_log [n_v], or derives it from a GGUF file's ssm_a, which
// holds −exp(A_log) (every entry must then be negative).
func (ld *loader) aLog(p string, nv int) []float32 {
	if !ld.gguf {
		return ld.vector(p+"A_log", nv)
	}
	a := ld.vector(p+"ssm_a", nv)
	for i, v := range a {
		if !(v < 0) || math.IsInf(float64(v), -1) {
			ld.fail(fmt.Errorf("%w: ssm_a[%d] of %s = %g (it holds −exp(A_log): want a finite negative number)", ErrBadFile, i, p, v))
			return nil
		}
		a[i] = float32(math.Log(-float64(v)))
	}
	return a
}

// onePlus turns a zero-centred norm weight w into the scale 1 + w (fp32,
// as Qwen3_5RMSNorm computes it), so the shared rmsNorm block applies it.
func onePlus(w []float32) []float32 {
	for i := range w {
		w[i] = 1 + w[i]
	}
	return w
}

// qwen35Skipped names the checkpoint's parts that a text decoder does not
// run, for the Model panel.
func qwen35Skipped(ld *loader) []string {
	var vision, mtp bool
	for _, n := range ld.set.Names() {
		vision = vision || strings.HasPrefix(n, "model.visual.")
		mtp = mtp || strings.HasPrefix(n, "mtp.")
	}
	if g, ok := ld.set.(*ggufSet); ok && g.mtp > 0 {
		mtp = true
	}
	var out []string
	if vision {
		out = append(out, "vision tower")
	}
	if mtp {
		out = append(out, "MTP head")
	}
	return out
}

// params counts docs/spec/qwen35.md §6: the gated attention (q_proj twice as wide,
// q/k norms) and the DeltaNet mixers apart; MLP and the two norms in every
// layer.
func (qwen35) params(cfg Config) paramSplit {
	h, I, L := int64(cfg.HiddenSize), int64(cfg.IntermediateSize), int64(cfg.NumHiddenLayers)
	d := int64(cfg.HeadDim)
	qDim, kvDim := int64(cfg.NumAttentionHeads)*d, int64(cfg.NumKeyValueHeads)*d
	dm := cfg.Qwen35.Linear
	C, vd, nv := int64(dm.ConvDim()), int64(dm.ValueDim()), int64(dm.NV)
	full := int64(len(cfg.Qwen35.FullAttentionLayers()))
	return paramSplit{
		attention: full * (2*qDim*h + 2*kvDim*h + qDim*h + 2*d),
		deltaNet:  (L - full) * (C*h + vd*h + 2*nv*h + C*int64(dm.Conv) + 2*nv + int64(dm.DV) + h*vd),
		mlp:       L * 3 * h * I,
		norm:      L * 2 * h,
	}
}
