package engine

// Batched decode: B independent sequences (their own prompts, KV caches,
// DeltaNet states and samplers) written together, one forward pass a step
// over B rows, one token of each sequence. Every matrix product of the
// pass multiplies the B rows by one read of the weights (mat.mul: the
// prefill's many-token kernels), so a step reads the weights once for B
// written tokens: the bytes per written token fall as 1/B, and at large B
// writing is bound by computation again, as reading (prefill) is.
//
// What stays per sequence: its position (RoPE, ropeRow), its KV cache and
// the attention over it (attendRows), a hybrid model's DeltaNet state, the
// convolution window and S of every layer (causalConvRows,
// deltaRuleRows), and its sampler. The architectures' files know nothing
// of batches: decoderStack runs their layers over the B rows, and the
// blocks above read m.batch.
//
// MoE models: the attention, the router, a shared expert and the output
// head are read once for the B rows; the routed experts are grouped by
// expert (moePrefill), so an expert that several rows chose is read once
// for all of them, but rows that chose different experts read different
// ones: with k of E experts a token, a step reads about E·(1−(1−k/E)^B)
// experts instead of B·k (OLMoE, k = 8 of 64, B = 8: 42 instead of 64).
// The batch's bytes per written token count the experts each pass read
// (BatchTiming.ExpertBytes, from the router's choices of its rows).
//
// Arithmetic: each prompt is read as a solo run reads it. The batched
// rows are written tokens: bf16 and f32 matrices multiply them with fp32
// activations, as decode does (project), even where prefill would round
// them to bf16 (auto's bf16 experts, --kernels avx512bf16), so each
// sequence gets its solo run's numbers up to the order of fp32 sums.
// Quantised matrices differ: decode rounds the activations to 8 bits, the
// many-token kernels to bf16 (an MoE's integer experts chosen by few rows
// run decode's 8-bit products, moePrefill), so under --kernels exact only
// (every product in fp32) is a quantised file's batch its solo run.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"loupe/engine/deltanet"
	"loupe/trace"
)

// seqState is what one sequence keeps between forward passes: its KV cache
// [L][KV][ctxCap][d], the RoPE table [ctxCap, rotary/2], the record of what
// the cache holds, and a hybrid model's DeltaNet states ([L], nil for
// attention layers; nil for a model without DeltaNet layers).
type seqState struct {
	kCache, vCache   []float32
	ctxCap           int
	ropeCos, ropeSin []float32
	kv               kvContents
	deltaNet         []*deltanet.State
}

// newSeqState allocates a sequence of capacity positions sharing the RoPE
// table cos, sin of that capacity.
func (m *Model) newSeqState(capacity int, cos, sin []float32) *seqState {
	n := m.kvLayers() * m.cfg.NumKeyValueHeads * capacity * m.cfg.HeadDim
	s := &seqState{kCache: make([]float32, n), vCache: make([]float32, n), ctxCap: capacity, ropeCos: cos, ropeSin: sin}
	if m.cfg.Qwen35 != nil {
		s.deltaNet = newRecurrentState(&m.cfg).layers
	}
	return s
}

// swapState exchanges the sequence state the model's own forward pass
// uses with s: a batch reads each prompt with the solo forward (prefill,
// chunked, the prompt's own cache) between two swaps, and the model's own
// cache (a chat's previous turns) is back unchanged after the second.
func (m *Model) swapState(s *seqState) {
	m.kCache, s.kCache = s.kCache, m.kCache
	m.vCache, s.vCache = s.vCache, m.vCache
	m.ctxCap, s.ctxCap = s.ctxCap, m.ctxCap
	m.ropeCos, s.ropeCos = s.ropeCos, m.ropeCos
	m.ropeSin, s.ropeSin = s.ropeSin, m.ropeSin
	m.kv, s.kv = s.kv, m.kv
	if m.recur != nil {
		m.recur.layers, s.deltaNet = s.deltaNet, m.recur.layers
	}
}

// batchStep is one batched pass: row t is the next token of sequence
// seqs[t], at position pos[t].
type batchStep struct {
	pos      []int
	seqs     []*seqState
	cos, sin []float32 // the sequences' RoPE table [C, rotary/2]
}

// forwardRows runs one batched decode pass over tokens [B] and returns the
// logits [B, V] of every row and, for an MoE model, the bytes of the
// routed experts the pass read beyond one token's k (expertsBeyondOne).
func (m *Model) forwardRows(ctx context.Context, tokens []int, seqs []*seqState, pos []int) ([]float32, float64, error) {
	m.batch = &batchStep{pos: pos, seqs: seqs, cos: seqs[0].ropeCos, sin: seqs[0].ropeSin}
	defer func() { m.batch = nil }()
	pr := &probes{allLogits: true}
	var routes [][]trace.Routing // [B][MoE layers] each row's router choice
	if m.cfg.MoE != nil {
		routes, pr.experts = make([][]trace.Routing, len(tokens)), map[int]*[]trace.Routing{}
		for t := range routes {
			pr.experts[t] = &routes[t] // captureExperts keys a row by pos0 + t, pos0 = 0
		}
	}
	logits, err := m.arch.forward(ctx, m, tokens, 0, pr)
	return logits, m.expertsBeyondOne(routes), err
}

// expertsBeyondOne is what the routed experts of rows read beyond one
// token's k experts a layer: each expert that any row chose is read once
// (moePrefill groups the rows by expert), so a layer whose B rows chose
// n distinct experts reads n − k more than one token does.
func (m *Model) expertsBeyondOne(routes [][]trace.Routing) float64 {
	if len(routes) == 0 {
		return 0
	}
	extra := 0
	for l := range routes[0] {
		chosen := map[int]bool{}
		for _, r := range routes {
			for _, e := range r[l].IDs {
				chosen[e] = true
			}
		}
		extra += len(chosen) - len(routes[0][l].IDs)
	}
	return float64(extra) * float64(m.info.ExpertBytes)
}

// attendRows is attention for a batched pass: row t's key and value join
// its own sequence's cache at pos[t], then its query heads attend over
// that cache (attendGroupOf: keys 0…pos[t]), one work item per (row, kv
// head), so no sequence sees another's keys.
func (m *Model) attendRows(l int) {
	bt, b := m.batch, &m.buf
	d, KV := m.cfg.HeadDim, m.cfg.NumKeyValueHeads
	for t, s := range bt.seqs {
		for kvh := range KV {
			dst, src := m.kvIndex(l, kvh, bt.pos[t], s.ctxCap), (t*KV+kvh)*d
			copy(s.kCache[dst:dst+d], b.k[src:src+d])
			copy(s.vCache[dst:dst+d], b.v[src:src+d])
		}
	}
	m.pool.For(len(bt.seqs)*KV, func(w, lo, hi int) {
		for job := lo; job < hi; job++ {
			t, kvh := job/KV, job%KV
			s := bt.seqs[t]
			base := m.kvIndex(l, kvh, 0, s.ctxCap)
			m.attendGroupOf(s.kCache[base:], s.vCache[base:], t, l, kvh, bt.pos[t], w, nil)
		}
	})
}

// causalConvRows is causalConv for a batched pass: row t of mixed [B, C]
// is one step of its own sequence's convolution window.
func (m *Model) causalConvRows(l int) {
	s, d, bt := m.recur, m.recur.dims, m.batch
	C, K, convT := d.ConvDim(), d.Conv, m.w.layers[l].linear.convT
	const band = 64
	nb := (C + band - 1) / band
	m.pool.For(len(bt.seqs)*nb, func(_, lo, hi int) {
		for job := lo; job < hi; job++ {
			t, c0 := job/nb, job%nb*band
			deltanet.CausalConv(s.conv[t*C:], s.mixed[t*C:], 1, bt.seqs[t].deltaNet[l], convT, K, C, c0, min(C, c0+band))
		}
	})
}

// deltaRuleRows is deltaRule for a batched pass: one recurrent step of each
// row's value heads on its own sequence's state S [d_k, d_v] per head.
func (m *Model) deltaRuleRows(l int) {
	s, d, bt := m.recur, m.recur.dims, m.batch
	C, kd, nv, vd := d.ConvDim(), d.KeyDim(), d.NV, d.ValueDim()
	m.pool.For(len(bt.seqs)*nv, func(w, lo, hi int) {
		for job := lo; job < hi; job++ {
			t, j := job/nv, job%nv
			kh, row := d.KeyHead(j), s.conv[t*C:(t+1)*C] // q ‖ k ‖ v of row t
			seq := deltanet.Seq{T: 1,
				Q: row[kh*d.DK:], K: row[kd+kh*d.DK:], LdQK: C,
				V: row[2*kd+j*d.DV:], LdV: C,
				O: s.core[t*vd+j*d.DV:], LdO: vd,
				G: s.g[t*nv+j:], Beta: s.beta[t*nv+j:], LdG: nv}
			deltanet.Recurrent(seq, bt.seqs[t].deltaNet[l].Head(d, j), d.DK, d.DV, s.r[w])
		}
	})
}

// BatchRun is a finished (or cancelled) batched generation.
type BatchRun struct {
	// Runs are the sequences in the order of the prompts, each recorded
	// as Generate records a run (steps with their top-N, timing), without
	// attention. A sequence's StepSeconds include the passes it shared.
	Runs   []*trace.Run
	Timing BatchTiming
}

// BatchTiming is the clock of a batched generation, all sequences together.
type BatchTiming struct {
	PrefillSeconds float64   // the prompts, read one after another
	DecodeSeconds  float64   // from the end of the prefills to the last token
	DecodeTokens   int       // tokens written, every sequence
	PassSeconds    []float64 // each batched pass, sampling of its rows' tokens included
	PassRows       []int     // the sequences each pass ran
	// WeightBytes is what one pass reads whatever its rows: the weights,
	// an MoE model's with one token's k experts a layer. ExpertBytes is
	// the Σ over passes of the routed experts read beyond those (the
	// experts other rows chose). StateBytes is a hybrid model's DeltaNet
	// state, read by each row; KVBytes the Σ over passes and rows of the
	// KV cache read.
	WeightBytes, ExpertBytes, StateBytes, KVBytes float64
}

// BytesPerToken is what the passes read per token they wrote: the weights
// once a pass (an MoE model: every expert some row chose), each row's
// state and KV cache. With B rows a pass of a dense model it is about
// weights / B + one sequence's KV.
func (t BatchTiming) BytesPerToken() float64 {
	rows := 0
	for _, r := range t.PassRows {
		rows += r
	}
	if rows == 0 {
		return 0
	}
	read := t.WeightBytes*float64(len(t.PassRows)) + t.ExpertBytes + t.StateBytes*float64(rows) + t.KVBytes
	return read / float64(rows)
}

// MeanRows is the mean of PassRows: the batch size the passes ran at.
func (t BatchTiming) MeanRows() float64 {
	if len(t.PassRows) == 0 {
		return 0
	}
	n := 0
	for _, r := range t.PassRows {
		n += r
	}
	return float64(n) / float64(len(t.PassRows))
}

// GenerateBatch continues each prompt as Generate would, the sequences
// written together: each prompt is read (prefill) on its own, then every
// step samples each live sequence's token and runs all of them in one
// forward pass. A sequence that stops (an EOS id, MaxTokens, the context)
// leaves the batch; cancelling ctx stops all of them (StopReason
// "cancelled"). onEvent (may be nil) gets each sequence's Prefill and Step
// events with its index; no Token or Attention events, and opt.Attn is
// ignored. Probes that change the model (Ablate, DisableExperts,
// TopKExperts), MLP captures, Branch and ReuseCache are refused.
func (m *Model) GenerateBatch(ctx context.Context, prompts []string, opt GenerateOptions, onEvent func(seq int, e Event)) (_ *BatchRun, err error) {
	defer recoverError(&err)
	if m.tok == nil {
		return nil, fmt.Errorf("%w: model has no tokenizer", ErrSettings)
	}
	ids := make([][]int, len(prompts))
	for i, p := range prompts {
		ids[i] = m.tok.Encode(p)
	}
	return m.generateBatch(ctx, prompts, ids, opt, onEvent)
}

// checkBatchOptions refuses what a batch does not run, by name.
func checkBatchOptions(n int, opt GenerateOptions) error {
	switch {
	case n < 1:
		return fmt.Errorf("%w: a batch needs at least one prompt", ErrSettings)
	case len(opt.Ablate) > 0 || len(opt.DisableExperts) > 0 || opt.TopKExperts > 0:
		return fmt.Errorf("%w: heads or experts switched off: run the prompts one at a time", ErrSettings)
	case len(opt.MLP) > 0 || opt.Branch != nil || opt.ReuseCache:
		return fmt.Errorf("%w: MLP captures, branches and cache reuse are for one prompt at a time", ErrSettings)
	}
	return nil
}

// batchGen is the state of one GenerateBatch call.
type batchGen struct {
	m      *Model
	gens   []*generation // one per prompt
	seqs   []*seqState
	timing BatchTiming
}

// generateBatch runs GenerateBatch on the prompts' ids.
func (m *Model) generateBatch(ctx context.Context, prompts []string, ids [][]int, opt GenerateOptions, onEvent func(int, Event)) (*BatchRun, error) {
	if err := checkBatchOptions(len(ids), opt); err != nil {
		return nil, err
	}
	restore, err := useKernels(opt.Kernels)
	if err != nil {
		return nil, err
	}
	defer restore()
	opt.Attn = AttnCapture{}
	b := &batchGen{m: m, gens: make([]*generation, len(ids))}
	capacity := 0
	for i := range ids {
		emit := func(e Event) {
			if onEvent != nil {
				onEvent(i, e)
			}
		}
		g, err := m.newGeneration(prompts[i], ids[i], opt, emit)
		if err != nil {
			return nil, fmt.Errorf("prompt %d: %w", i+1, err)
		}
		b.gens[i], capacity = g, max(capacity, len(ids[i])+opt.Settings.MaxTokens)
	}
	if err := m.checkRunMemory(len(ids)*capacity, 0); err != nil { // B caches of capacity positions
		return nil, err
	}
	err = b.run(ctx, capacity)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		err = nil
		for _, g := range b.gens {
			if g.run.StopReason == "" {
				g.run.StopReason = "cancelled"
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return b.finish(), nil
}

// run reads every prompt into its own sequence, then decodes them together.
func (b *batchGen) run(ctx context.Context, capacity int) error {
	m := b.m
	if m.cfg.Qwen35 != nil && m.recur == nil {
		m.recur = newRecurrentState(&m.cfg) // the row buffers; each sequence has its own states
	}
	cos, sin := ropeTableFreq(ropeInvFreq(&m.cfg), capacity)
	logits := make([][]float32, len(b.gens)) // [B][V] each sequence's next logits
	start := time.Now()
	for i, g := range b.gens {
		s := m.newSeqState(capacity, cos, sin)
		b.seqs = append(b.seqs, s)
		m.swapState(s)
		l, err := g.prefill(ctx)
		m.swapState(s)
		if err != nil {
			return err
		}
		logits[i] = slices.Clone(l)
	}
	b.timing.PrefillSeconds = time.Since(start).Seconds()
	return b.decode(ctx, logits)
}

// decode samples each live sequence's token from its logits, drops the
// sequences that stop, and runs the others' tokens in one pass, until none
// is left or ctx is cancelled.
func (b *batchGen) decode(ctx context.Context, logits [][]float32) error {
	start := time.Now()
	defer func() { b.timing.DecodeSeconds = time.Since(start).Seconds() }()
	prev := make([]time.Time, len(b.gens))
	live := make([]int, len(b.gens))
	for i := range live {
		prev[i], live[i] = start, i
	}
	V, kvPerPos := b.m.cfg.VocabSize, float64(b.m.info.KVBytesPerToken)
	for len(live) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		passStart := time.Now()
		rows, tokens, seqs, pos, err := b.sampleAll(live, logits, prev, start)
		if err != nil || len(rows) == 0 {
			return err
		}
		out, experts, err := b.m.forwardRows(ctx, tokens, seqs, pos)
		if err != nil {
			return err
		}
		b.timing.ExpertBytes += experts
		for r, i := range rows {
			logits[i] = out[r*V : (r+1)*V]
			b.gens[i].kvReads += kvPerPos * float64(pos[r]+1)
			b.timing.KVBytes += kvPerPos * float64(pos[r]+1)
		}
		b.timing.PassSeconds = append(b.timing.PassSeconds, time.Since(passStart).Seconds())
		b.timing.PassRows = append(b.timing.PassRows, len(rows))
		live = rows
	}
	return nil
}

// sampleAll draws the next token of every live sequence and returns those
// that go on: their indices, tokens, states and positions. A sequence that
// stops records its reason and decode time.
func (b *batchGen) sampleAll(live []int, logits [][]float32, prev []time.Time, start time.Time) (rows, tokens []int, seqs []*seqState, pos []int, err error) {
	for _, i := range live {
		g := b.gens[i]
		p := len(g.ids)
		id := g.sampleStep(logits[i], p, &prev[i])
		if math.IsInf(float64(logits[i][id]), -1) {
			return nil, nil, nil, nil, fmt.Errorf("%w: the model computed no finite logit for position %d of prompt %d: its weights hold NaN or infinite values", ErrBadFile, p, i+1)
		}
		g.ids, g.routes = append(g.ids, id), nil // a batched pass records no routing
		if reason := g.stopReason(id); reason != "" {
			g.run.StopReason = reason
			g.run.Timing.DecodeSeconds = time.Since(start).Seconds()
			continue
		}
		rows, tokens = append(rows, i), append(tokens, id)
		seqs, pos = append(seqs, b.seqs[i]), append(pos, p)
	}
	return rows, tokens, seqs, pos, nil
}

// finish fills every run's timing and the batch's. A run's bytes per
// token are the batch's: the weights a pass read, shared by its rows.
func (b *batchGen) finish() *BatchRun {
	mi := &b.m.info
	b.timing.WeightBytes, b.timing.StateBytes = float64(mi.WeightBytesPerTok), float64(mi.StateBytes)
	out := &BatchRun{Timing: b.timing}
	for _, g := range b.gens {
		if g.run.Timing.DecodeSeconds == 0 { // cancelled
			g.run.Timing.DecodeSeconds = b.timing.DecodeSeconds
		}
		g.finishTiming()
		g.run.Timing.BytesPerToken = b.timing.BytesPerToken()
		out.Runs = append(out.Runs, g.run)
		out.Timing.DecodeTokens += g.run.Timing.DecodeTokens
	}
	return out
}
