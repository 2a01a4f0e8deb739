package engine

// The Gated DeltaNet block (docs/spec/qwen35.md §5) over the engine's buffers: the
// recurrent "linear attention" of Qwen3.5's linear_attention layers. The
// math lives in engine/deltanet (with its references and tests); this file
// runs it on the rows of a forward call, split over the workers, and keeps
// each sequence's fixed-size state.
//
// Notation: h hidden, n_k key heads, n_v value heads, d_k, d_v their
// widths, C = conv_dim = 2·n_k·d_k + n_v·d_v, K conv taps, T tokens.

import (
	"math"

	"loupe/engine/deltanet"
	"loupe/trace"
)

// deltaNetWeights are the tensors of one Gated DeltaNet mixer
// (prefix linear_attn.).
type deltaNetWeights struct {
	wQKV   mat       // [C, h] in_proj_qkv.weight: q‖k‖v before the convolution
	wZ     mat       // [n_v·d_v, h] in_proj_z.weight: input of the output gate
	wB     mat       // [n_v, h] in_proj_b.weight: β logits
	wA     mat       // [n_v, h] in_proj_a.weight: decay input a
	convT  []float32 // [K, C] conv1d.weight [C, 1, K], transposed (deltanet.TransposeConv)
	dtBias []float32 // [n_v] dt_bias
	aLog   []float32 // [n_v] A_log
	norm   []float32 // [d_v] norm.weight: gated RMSNorm scale, used as stored (not 1 + w)
	wOut   mat       // [h, n_v·d_v] out_proj.weight
}

// recurrentState is what a hybrid model keeps per sequence besides the KV
// cache: each DeltaNet layer's state, and the scratch of its forward calls.
type recurrentState struct {
	dims   deltanet.Dims
	layers []*deltanet.State     // [L] nil for attention layers
	ws     []*deltanet.Workspace // [threads] chunked-form scratch
	r      [][]float32           // [threads][d_v] recurrent-step scratch
	norms  []float32             // [chunks, n_v] state norms of one call (probes)

	rows          int
	qg, gate      []float32 // [rows, H·2d] q_proj output (query ‖ gate per head); [rows, H·d] gates
	mixed, conv   []float32 // [rows, C] before and after the convolution
	z, core       []float32 // [rows, n_v·d_v] gate input; delta-rule outputs, then normed
	a, b, g, beta []float32 // [rows, n_v] projections; log decay and write strength
}

// newRecurrentState allocates the zero state of every DeltaNet layer.
func newRecurrentState(cfg *Config) *recurrentState {
	s := &recurrentState{dims: cfg.Qwen35.Linear, layers: make([]*deltanet.State, cfg.NumHiddenLayers)}
	for l, t := range cfg.Qwen35.LayerTypes {
		if t == LinearAttention {
			s.layers[l] = deltanet.NewState(s.dims)
		}
	}
	return s
}

// reset starts a new sequence: zero recurrent and conv states.
func (s *recurrentState) reset() {
	for _, st := range s.layers {
		if st != nil {
			st.Reset()
		}
	}
}

// ensure sizes the per-call buffers for T rows and the per-worker scratch.
func (s *recurrentState) ensure(cfg *Config, T, threads int) {
	d := s.dims
	for len(s.ws) < threads {
		s.ws = append(s.ws, deltanet.NewWorkspace(d.DK, d.DV))
		s.r = append(s.r, make([]float32, d.DV))
	}
	if T <= s.rows {
		return
	}
	hd := cfg.NumAttentionHeads * cfg.HeadDim
	s.rows = T
	s.qg, s.gate = make([]float32, T*2*hd), make([]float32, T*hd)
	s.mixed, s.conv = make([]float32, T*d.ConvDim()), make([]float32, T*d.ConvDim())
	s.z, s.core = make([]float32, T*d.ValueDim()), make([]float32, T*d.ValueDim())
	s.a, s.b = make([]float32, T*d.NV), make([]float32, T*d.NV)
	s.g, s.beta = make([]float32, T*d.NV), make([]float32, T*d.NV)
	s.norms = make([]float32, (T/deltanet.ChunkSize+1)*d.NV)
}

// stateBytes is the fixed memory of one sequence: recurrent plus conv
// state of every DeltaNet layer, fp32.
func (s *recurrentState) stateBytes() int64 {
	var n int64
	for _, st := range s.layers {
		if st != nil {
			n += 4 * int64(len(st.S)+len(st.Conv))
		}
	}
	return n
}

// causalConv: conv [T, C] = silu(depthwise causal conv of mixed [T, C]),
// continuing layer l's conv window; workers take bands of 64 channels.
func (m *Model) causalConv(l, T int) {
	if m.batch != nil { // each row its own sequence's state (batch.go)
		m.causalConvRows(l)
		return
	}
	s, d := m.recur, m.recur.dims
	C, K, st := d.ConvDim(), d.Conv, s.layers[l]
	convT := m.w.layers[l].linear.convT
	const band = 64
	m.pool.For((C+band-1)/band, func(_, lo, hi int) {
		deltanet.CausalConv(s.conv, s.mixed, T, st, convT, K, C, lo*band, min(C, hi*band))
	})
}

// deltaGates turns the projections into, per token and value head, the log
// decay g = −exp(A_log)·softplus(a + dt_bias) and β = sigmoid(b), and
// L2-normalises the queries (times 1/√d_k) and keys of conv in place.
func (m *Model) deltaGates(l, T, pos0 int, pr *probes) {
	s, d, dn := m.recur, m.recur.dims, m.w.layers[l].linear
	C, nv := d.ConvDim(), d.NV
	qScale := float32(1 / math.Sqrt(float64(d.DK)))
	m.pool.For(T, func(_, lo, hi int) {
		for t := lo; t < hi; t++ {
			deltanet.Gates(s.g[t*nv:(t+1)*nv], s.beta[t*nv:(t+1)*nv], s.a[t*nv:(t+1)*nv], s.b[t*nv:(t+1)*nv], dn.aLog, dn.dtBias)
			row := s.conv[t*C : (t+1)*C] // q [n_k·d_k] ‖ k [n_k·d_k] ‖ v [n_v·d_v]
			for h := range d.NK {
				deltanet.L2Norm(row[h*d.DK:(h+1)*d.DK], qScale)
				deltanet.L2Norm(row[d.KeyDim()+h*d.DK:d.KeyDim()+(h+1)*d.DK], 1)
			}
		}
	})
	pr.captureGates(l, T, pos0, s.g, s.beta, nv)
}

// deltaRule runs the gated delta rule of every value head over the T
// tokens into core [T, n_v·d_v], carrying layer l's state: the recurrent
// step for one token (decode), the chunked form for more (prefill). Value
// head j reads q/k head j/(n_v/n_k). Each head is one worker's job, so the
// result does not depend on the thread count.
func (m *Model) deltaRule(l, T, pos0 int, pr *probes) {
	if m.batch != nil {
		m.deltaRuleRows(l)
		return
	}
	s, d := m.recur, m.recur.dims
	C, kd, nv := d.ConvDim(), d.KeyDim(), d.NV
	st := s.layers[l]
	nChunks := (T + deltanet.ChunkSize - 1) / deltanet.ChunkSize
	m.pool.For(nv, func(w, lo, hi int) {
		for j := lo; j < hi; j++ {
			kh := d.KeyHead(j)
			seq := deltanet.Seq{T: T,
				Q: s.conv[kh*d.DK:], K: s.conv[kd+kh*d.DK:], LdQK: C,
				V: s.conv[2*kd+j*d.DV:], LdV: C,
				O: s.core[j*d.DV:], LdO: d.ValueDim(),
				G: s.g[j:], Beta: s.beta[j:], LdG: nv}
			S := st.Head(d, j)
			if T == 1 {
				deltanet.Recurrent(seq, S, d.DK, d.DV, s.r[w])
				s.norms[j] = st.Norm(d, j)
				continue
			}
			for c := range nChunks { // one chunk per call, so the probes see each chunk's state
				t0 := c * deltanet.ChunkSize
				deltanet.Chunked(s.ws[w], seq.Slice(t0, min(T, t0+deltanet.ChunkSize)), S, d.DK, d.DV)
				s.norms[c*nv+j] = st.Norm(d, j)
			}
		}
	})
	for c := range nChunks {
		pr.captureStateNorm(l, pos0+min(T, (c+1)*deltanet.ChunkSize)-1, s.norms[c*nv:(c+1)*nv])
	}
}

// gatedNorm replaces each head of core by GatedRMSNorm(core, z):
// w ⊙ core/rms(core) ⊙ silu(z), over d_v values per head.
func (m *Model) gatedNorm(l, T int) {
	s, d, w := m.recur, m.recur.dims, m.w.layers[l].linear.norm
	eps := float32(m.cfg.RMSNormEps)
	m.pool.For(T*d.NV, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			o := s.core[i*d.DV : (i+1)*d.DV]
			deltanet.GatedRMSNorm(o, o, s.z[i*d.DV:(i+1)*d.DV], w, eps)
		}
	})
}

// newDeltaNetCaptures records every DeltaNet layer of a hybrid model.
func (m *Model) newDeltaNetCaptures() map[int]*trace.DeltaNet {
	if m.cfg.Qwen35 == nil {
		return nil
	}
	caps := map[int]*trace.DeltaNet{}
	for l, t := range m.cfg.Qwen35.LayerTypes {
		if t == LinearAttention {
			caps[l] = &trace.DeltaNet{Layer: l}
		}
	}
	return caps
}

// captureGates records α = e^g and β of T tokens (rows of n_v).
func (pr *probes) captureGates(l, T, pos0 int, g, beta []float32, nv int) {
	if pr == nil || pr.deltaNet[l] == nil {
		return
	}
	c := pr.deltaNet[l]
	for t := range T {
		if pos0+t != len(c.Alpha) { // positions arrive in order; a rerun of a position replaces nothing
			continue
		}
		a := make([]float32, nv)
		for j := range a {
			a[j] = float32(math.Exp(float64(g[t*nv+j])))
		}
		c.Alpha = append(c.Alpha, a)
		c.Beta = append(c.Beta, append([]float32(nil), beta[t*nv:(t+1)*nv]...))
	}
}

// captureStateNorm records the state norms of every value head after pos.
func (pr *probes) captureStateNorm(l, pos int, norms []float32) {
	if pr == nil || pr.deltaNet[l] == nil {
		return
	}
	c := pr.deltaNet[l]
	c.StatePos = append(c.StatePos, pos)
	c.StateNorm = append(c.StateNorm, append([]float32(nil), norms...))
}

// deltaNetRun lists the captures in layer order.
func (pr *probes) deltaNetRun(L int) []trace.DeltaNet {
	var out []trace.DeltaNet
	for l := range L {
		if c := pr.deltaNet[l]; c != nil {
			out = append(out, *c)
		}
	}
	return out
}
