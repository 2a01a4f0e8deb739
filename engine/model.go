package engine

import (
	"runtime"

	"github.com/klauspost/cpuid/v2"

	"loupe/engine/pool"
	"loupe/engine/tokenizer"
	"loupe/kernels"
	"loupe/trace"
)

// Model is a loaded model: its architecture's forward pass, weights,
// buffers and KV cache.
//
// A Model is not safe for concurrent use: Generate, SetThreads and the
// probes share one set of buffers. The caller runs one call at a time and
// cancels through Generate's context.
type Model struct {
	cfg  Config
	arch architecture // the forward pass of cfg.Architecture
	w    weights
	eos  []int                // stop ids
	info trace.ModelInfo      // filled at load
	tok  *tokenizer.Tokenizer // nil for models built in memory by tests
	done func() error         // releases the memory map
	pool *pool.Pool

	// KV cache, fp32, [L][KV][ctxCap][d] (see kvOffset) over the L layers
	// with attention (kvSlot); and the RoPE table [ctxCap, rotary dim/2].
	// Both grow to the longest generation seen.
	ctxCap           int
	kvSlot           []int // layer → its place in the cache, −1 for none; nil: layer l at l
	kCache, vCache   []float32
	ropeCos, ropeSin []float32
	kv               kvContents // which tokens the cache holds (chat.go)

	chat chatSetup // the folder's chat template and sampling presets (chat.go)

	buf    buffers
	moeBuf moeScratch      // the MoE block's activations (moe.go)
	recur  *recurrentState // hybrid models: the DeltaNet layers' state per sequence (deltanet.go)
	batch  *batchStep      // set during a batched decode pass: each row's sequence and position (batch.go)
}

// buffers are the activations of one forward call, allocated for the
// largest call seen (at most prefillChunk rows) and reused.
type buffers struct {
	rows     int         // capacity in tokens
	x        []float32   // [rows, h] residual stream (ffn_inp after attention)
	xn       []float32   // [rows, h] attn_norm, ffn_norm, then result_norm
	q        []float32   // [rows, H·d] Qcur
	k, v     []float32   // [rows, KV·d] Kcur, Vcur
	kqv      []float32   // [rows, H·d] kqv_out: head outputs, concatenated
	attnOut  []float32   // [rows, h] attn_out = kqv_out·Woᵀ
	gate, up []float32   // [rows, I] ffn_gate (then silu(gate)·up), ffn_up
	ffnOut   []float32   // [rows, h] ffn_out
	scores   [][]float32 // [threads][rows·ctxCap] kq_soft_max per worker (see ensureScores)
	qScratch [][]float32 // [threads][rows·d] scaled queries of one block or group
	kT       []float32   // [KV, d, ctxCap] keys of the current layer, transposed (prefill)
	logits   []float32   // [rows or 1, V] result_output

	xq kernels.QuantizedX    // decode's input row rounded to 8 bits, for quantised matrices' integer kernels
	rx kernels.RoundedX      // prefill's input rows rounded to bf16 once for all workers (mat.mul)
	xr kernels.QuantizedRows // prefill's input rows rounded to 8 bits once for all workers (mat.mulQ8)
}

// newModel wraps validated weights of a registered architecture (the
// config parser refuses others); Load and the tests call it.
func newModel(cfg Config, w weights, threads int) *Model {
	tagParts(&w)
	m := &Model{cfg: cfg, arch: architectures[cfg.Architecture], w: w, eos: cfg.EOSTokenIDs}
	if att := cfg.attentionLayers(); len(att) != cfg.NumHiddenLayers {
		m.kvSlot = make([]int, cfg.NumHiddenLayers)
		for l := range m.kvSlot {
			m.kvSlot[l] = -1
		}
		for i, l := range att {
			m.kvSlot[l] = i
		}
	}
	m.SetThreads(threads)
	return m
}

// ThreadsHelp is the --threads flag's help in the window and every
// command: 0 means defaultThreads, everywhere.
const ThreadsHelp = "worker threads (0: one per physical core)"

// defaultThreads is the number of physical cores: the kernels are limited
// by memory bandwidth and FMA ports, which hyper-threads share. Never more
// than the CPUs this process may use (a container's limit).
func defaultThreads() int {
	if n := cpuid.CPU.PhysicalCores; n > 0 {
		return min(n, runtime.NumCPU())
	}
	return runtime.NumCPU()
}

// SetThreads sets the workers of the forward pass (0: physical cores).
// Logits do not depend on it: every sum is done by one worker in a fixed
// order.
func (m *Model) SetThreads(n int) {
	if n <= 0 {
		n = defaultThreads()
	}
	if m.pool != nil {
		// Compare with what New would start: a request above GOMAXPROCS
		// is capped there, and must not rebuild the pool at every call.
		if m.pool.Threads() == pool.Effective(n) {
			return
		}
		m.pool.Close()
	}
	m.pool = pool.New(n)
	m.buf.scores = nil // per-worker scratch follows the count
}

// Threads reports the workers of the forward pass.
func (m *Model) Threads() int { return m.pool.Threads() }

// Config returns the parsed config.json.
func (m *Model) Config() Config { return m.cfg }

// ensureBuffers makes the activation buffers hold T rows.
func (m *Model) ensureBuffers(T int) {
	b, c := &m.buf, &m.cfg
	if T > b.rows {
		h, qDim, kvDim, I := c.HiddenSize, c.NumAttentionHeads*c.HeadDim, c.NumKeyValueHeads*c.HeadDim, c.IntermediateSize
		b.rows = T
		b.x, b.xn, b.attnOut, b.ffnOut = make([]float32, T*h), make([]float32, T*h), make([]float32, T*h), make([]float32, T*h)
		b.q, b.kqv = make([]float32, T*qDim), make([]float32, T*qDim)
		b.k, b.v = make([]float32, T*kvDim), make([]float32, T*kvDim)
		b.gate, b.up = make([]float32, T*I), make([]float32, T*I)
	}
	m.ensureScores()
}

// ensureScores gives every worker its attention scratch, a [rows, ctxCap]
// score block and a [rows, d] query block (rows: a prefill block of qBlock
// queries or a decode group of H/KV heads), and sizes the shared Kᵀ.
func (m *Model) ensureScores() {
	n, b, d := m.pool.Threads(), &m.buf, m.cfg.HeadDim
	rows := max(qBlock, m.cfg.NumAttentionHeads/m.cfg.NumKeyValueHeads) // prefill block or decode group
	if len(b.scores) == n && len(b.scores[0]) >= rows*m.ctxCap {
		return
	}
	b.scores, b.qScratch = make([][]float32, n), make([][]float32, n)
	for i := range n {
		b.scores[i], b.qScratch[i] = make([]float32, rows*m.ctxCap), make([]float32, rows*d)
	}
	b.kT = make([]float32, m.cfg.NumKeyValueHeads*d*m.ctxCap)
}

// ensureContext grows the KV cache and the RoPE table to hold n positions,
// keeping the cached keys and values. Growth at least doubles (up to the
// model's context), so a caller stepping one position past the end does not
// copy the cache every step.
func (m *Model) ensureContext(n int) {
	if n > m.ctxCap {
		m.resizeContext(max(n, min(2*m.ctxCap, m.cfg.MaxPositionEmbeddings)))
	}
}

// reserveContext sizes the KV cache for a generation of exactly n
// positions, so that decode never reallocates it and no memory is wasted
// on positions it cannot reach.
func (m *Model) reserveContext(n int) {
	if n > m.ctxCap {
		m.resizeContext(n)
	}
}

// resizeContext reallocates the KV cache for newCap positions (≥ 64).
func (m *Model) resizeContext(newCap int) {
	c := &m.cfg
	newCap = max(newCap, 64)
	L, KV, d := m.kvLayers(), c.NumKeyValueHeads, c.HeadDim
	k, v := make([]float32, L*KV*newCap*d), make([]float32, L*KV*newCap*d)
	for lh := range L * KV { // copy each (layer, kv head) run of ctxCap·d floats
		copy(k[lh*newCap*d:], m.kCache[lh*m.ctxCap*d:(lh+1)*m.ctxCap*d])
		copy(v[lh*newCap*d:], m.vCache[lh*m.ctxCap*d:(lh+1)*m.ctxCap*d])
	}
	m.kCache, m.vCache, m.ctxCap = k, v, newCap
	m.ropeCos, m.ropeSin = ropeTableFreq(ropeInvFreq(c), newCap)
	m.ensureScores()
}

// Embedding returns a copy of row id of model.embed_tokens.weight [h], or
// nil when id is out of range.
func (m *Model) Embedding(id int) []float32 {
	if id < 0 || id >= m.w.embed.rows {
		return nil
	}
	out := make([]float32, m.w.embed.cols)
	m.w.embed.row(out, id)
	return out
}

// kvLayers is the number of layers the KV cache holds.
func (m *Model) kvLayers() int {
	if m.kvSlot == nil {
		return m.cfg.NumHiddenLayers
	}
	return len(m.cfg.attentionLayers())
}
