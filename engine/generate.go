package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"loupe/engine/sample"
	"loupe/kernels"
	"loupe/trace"
)

// prefillChunk bounds the tokens of one forward call. Prefill runs the
// prompt in chunks of this size: the weights are still read once per 512
// tokens (the batching that makes prefill fast), and the activation buffers
// stay at 512 rows (18 MiB for ffn_gate of a 1.5B model instead of 112 MiB
// for 3,139 tokens). Cancellation is checked between layers of each chunk.
const prefillChunk = 512

// maxAllPrompt bounds AttnCapture.AllPrompt: capturing every prompt row
// costs L·H·T²/2 floats (1.5B, 512 tokens: 176 MiB).
const maxAllPrompt = 512

// Generate continues prompt: it prefills the prompt as a batch, then
// samples and decodes one token at a time until an EOS id, MaxTokens, the
// context limit, or cancellation of ctx (checked between tokens and between
// layers, so Stop answers within one layer). onEvent (may be nil) is called
// on the caller's goroutine with copies as the run progresses.
//
// Cancellation is not an error: the partial run comes back with StopReason
// "cancelled". Each call starts a new sequence at position 0 (the KV cache is
// overwritten). Not safe for concurrent use (see Model).
func (m *Model) Generate(ctx context.Context, prompt string, opt GenerateOptions, onEvent func(Event)) (_ *trace.Run, err error) {
	defer recoverError(&err)
	if m.tok == nil {
		return nil, fmt.Errorf("%w: model has no tokenizer", ErrSettings)
	}
	return m.generate(ctx, prompt, m.tok.Encode(prompt), opt, onEvent)
}

// generate runs Generate on the ids of prompt (GenerateChat renders and
// encodes a conversation first).
func (m *Model) generate(ctx context.Context, prompt string, ids []int, opt GenerateOptions, onEvent func(Event)) (*trace.Run, error) {
	restore, err := useKernels(opt.Kernels)
	if err != nil {
		return nil, err
	}
	defer restore()
	g, err := m.newGeneration(prompt, ids, opt, onEvent)
	if err != nil {
		return nil, err
	}
	if err := m.checkRunMemory(len(g.ids)+g.opt.Settings.MaxTokens, g.captureBytes()); err != nil {
		return nil, err
	}
	m.reserveContext(len(g.ids) + g.opt.Settings.MaxTokens)
	var logits []float32
	logits, err = g.prefill(ctx)
	if err == nil {
		err = g.decode(ctx, logits)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		g.run.StopReason, err = "cancelled", nil
	}
	if err != nil {
		return nil, err
	}
	g.finishTiming()
	return g.run, nil
}

// generation is the state of one Generate call.
type generation struct {
	m       *Model
	opt     GenerateOptions
	ids     []int // prompt then generated
	nPrompt int
	reused  int // prompt positions whose K/V the cache already holds (ReuseCache)
	think   thinkTracker
	sampler *sample.Sampler
	pr      *probes
	eos     []int
	run     *trace.Run
	emit    func(Event)
	kvReads float64         // Σ over decode passes of the KV bytes read
	routes  []trace.Routing // an MoE model's router choices at the last position of the last forward pass
	raw     []float32       // [V] the logits before the sampler changed them (rawLogits)
}

// newGeneration validates the settings and encodes the prompt.
func (m *Model) newGeneration(prompt string, ids []int, opt GenerateOptions, onEvent func(Event)) (*generation, error) {
	if err := m.checkOptions(opt); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%w: the prompt is empty", ErrContext)
	}
	if err := contextError(len(ids), opt.Settings.MaxTokens, m.cfg.MaxPositionEmbeddings); err != nil {
		return nil, err
	}
	if opt.Attn.AllPrompt && len(ids) > maxAllPrompt {
		return nil, fmt.Errorf("%w: attention capture of every prompt position: prompt has %d tokens, limit %d",
			ErrSettings, len(ids), maxAllPrompt)
	}
	sampler, err := sample.New(samplerParams(opt.Settings), opt.Settings.Seed)
	if err != nil {
		return nil, settingsError{err}
	}
	sampler.SetPromptLen(len(ids)) // presence penalty counts generated tokens only
	sampler.RecordStages(opt.Stages)
	g := &generation{m: m, opt: opt, ids: ids, nPrompt: len(ids), sampler: sampler, eos: opt.EOS, emit: onEvent}
	if g.eos == nil {
		g.eos = m.eos
	}
	if g.emit == nil {
		g.emit = func(Event) {}
	}
	g.pr = m.newProbes(opt)
	g.think = m.newThinkTracker()
	g.run = m.newRun(prompt, ids, opt, &g.think)
	if opt.ReuseCache {
		g.reused = m.reusablePrefix(ids, opt)
	}
	g.run.Timing.PrefillTokens -= g.reused
	g.run.Timing.ReusedTokens = g.reused
	return g, nil
}

// contextError refuses a prompt of nPrompt tokens and maxTokens to write
// beyond the model's context, blaming what is too long: max_tokens alone,
// the prompt alone, or the two together.
func contextError(nPrompt, maxTokens, context int) error {
	n := nPrompt + maxTokens
	switch {
	case n <= context:
		return nil
	case maxTokens >= context:
		return fmt.Errorf("%w: max_tokens %d is more than its context of %d tokens (prompt included): lower max tokens",
			ErrContext, maxTokens, context)
	case nPrompt >= context:
		return fmt.Errorf("%w: the prompt's %d tokens fill its context of %d tokens: shorten the prompt",
			ErrContext, nPrompt, context)
	}
	return fmt.Errorf("%w: %d prompt tokens + %d max_tokens = %d, the model's context is %d: lower max tokens to %d or shorten the prompt",
		ErrContext, nPrompt, maxTokens, n, context, context-nPrompt)
}

// settingsError is the sampler's message, matching both ErrSettings and
// sample.ErrSettings.
type settingsError struct{ err error }

func (e settingsError) Error() string   { return e.err.Error() }
func (e settingsError) Unwrap() []error { return []error{ErrSettings, e.err} }

// samplerParams maps the trace settings to the sampler's; zero values of
// top_p and repetition_penalty mean "off" (1).
func samplerParams(s trace.Settings) sample.Params {
	p := sample.Params{Temperature: s.Temperature, TopK: s.TopK, TopP: s.TopP, MinP: s.MinP,
		PresencePenalty: s.PresencePenalty, RepetitionPenalty: s.RepeatPenalty}
	if p.TopP == 0 {
		p.TopP = 1
	}
	if p.RepetitionPenalty == 0 {
		p.RepetitionPenalty = 1
	}
	return p
}

// checkOptions refuses settings out of range, naming the setting.
func (m *Model) checkOptions(opt GenerateOptions) error {
	c := &m.cfg
	switch {
	case opt.Settings.MaxTokens < 1:
		return fmt.Errorf("%w: max_tokens %d (want ≥ 1)", ErrSettings, opt.Settings.MaxTokens)
	case opt.TopN < 0 || opt.TopN > c.VocabSize:
		return fmt.Errorf("%w: top-N %d (want 0…%d)", ErrSettings, opt.TopN, c.VocabSize)
	case opt.Stages < 0 || opt.Stages > 1000:
		return fmt.Errorf("%w: sampler stages of %d candidates (want 0…1000)", ErrSettings, opt.Stages)
	}
	for _, h := range opt.Ablate {
		if h.Layer < 0 || h.Layer >= c.NumHiddenLayers || h.Head < 0 || h.Head >= c.NumAttentionHeads {
			return fmt.Errorf("%w: ablated head %d:%d (layer:head from 0; the model has %d layers × %d heads)",
				ErrSettings, h.Layer, h.Head, c.NumHiddenLayers, c.NumAttentionHeads)
		}
		if m.kvSlot != nil && m.kvSlot[h.Layer] < 0 {
			return fmt.Errorf("%w: ablated head %d:%d: layer %d is a Gated DeltaNet layer, it has no attention heads",
				ErrSettings, h.Layer, h.Head, h.Layer)
		}
	}
	if err := m.checkExperts(opt.DisableExperts, opt.TopKExperts); err != nil {
		return err
	}
	for _, mc := range opt.MLP {
		if mc.Layer < 0 || mc.Layer >= c.NumHiddenLayers || mc.Pos < 0 {
			return fmt.Errorf("%w: MLP capture at layer %d position %d", ErrSettings, mc.Layer, mc.Pos)
		}
	}
	if b := opt.Branch; b != nil && (b.At < 0 || b.At >= opt.Settings.MaxTokens || b.Token < 0 || b.Token >= c.VocabSize) {
		return fmt.Errorf("%w: branch at written token %d with token %d (want 0…%d and 0…%d)",
			ErrSettings, b.At, b.Token, opt.Settings.MaxTokens-1, c.VocabSize-1)
	}
	for _, p := range opt.Attn.Positions {
		if p < 0 {
			return fmt.Errorf("%w: attention capture at position %d", ErrSettings, p)
		}
	}
	return nil
}

// newProbes sets up ablation and the MLP captures; attention captures are
// added per forward call (attnFor).
func (m *Model) newProbes(opt GenerateOptions) *probes {
	pr := &probes{deltaNet: m.newDeltaNetCaptures()}
	if len(opt.Ablate) > 0 {
		pr.ablate = make([][]int, m.cfg.NumHiddenLayers)
		for _, h := range opt.Ablate {
			if !slices.Contains(pr.ablate[h.Layer], h.Head) {
				pr.ablate[h.Layer] = append(pr.ablate[h.Layer], h.Head)
			}
		}
	}
	pr.expertsOff, pr.topK = trace.ExpertsOff(opt.DisableExperts, m.cfg.NumHiddenLayers), opt.TopKExperts
	if len(opt.MLP) > 0 {
		pr.mlp = map[[2]int]*trace.MLP{}
		for _, mc := range opt.MLP {
			pr.mlp[[2]int{mc.Layer, mc.Pos}] = &trace.MLP{Layer: mc.Layer, Pos: mc.Pos}
		}
	}
	return pr
}

func (m *Model) newRun(prompt string, ids []int, opt GenerateOptions, think *thinkTracker) *trace.Run {
	s := opt.Settings
	c := kernels.Current() // the run's: generate switched to opt.Kernels
	s.Threads, s.Kernels, s.Arithmetic = m.pool.Threads(), c.Level().String(), m.ArithmeticOf(c)
	s.QuantArithmetic = m.QuantArithmeticOf(c)
	s.Ablate = slices.Clone(opt.Ablate)
	s.DisableExperts, s.TopKExperts = slices.Clone(opt.DisableExperts), opt.TopKExperts
	if opt.Branch != nil {
		b := *opt.Branch
		s.Branch = &b
	}
	run := &trace.Run{Model: m.info, Prompt: prompt, Settings: s}
	for pos, id := range ids {
		run.Tokens = append(run.Tokens, trace.Token{ID: id, Text: m.TokenText(id), Pos: pos,
			Special: m.isSpecial(id), Thinking: think.next(id)})
	}
	run.Timing.PrefillTokens = len(ids)
	run.Timing.Kernels, run.Timing.Arithmetic = s.Kernels, s.Arithmetic
	return run
}

// captureBytes is the most memory the run's captures take: the attention
// rows of the prompt positions and Positions, of the generated positions
// (within Attn.KeepBytes plus the newest one when it is set), and the MLP
// values.
func (g *generation) captureBytes() int64 {
	c, a := &g.m.cfg, g.opt.Attn
	perKey := int64(g.m.kvLayers()*c.NumAttentionHeads) * 4 // one key of one capture, every layer and head
	end := g.nPrompt + g.opt.Settings.MaxTokens             // positions 0…end-1
	keys := func(lo, hi int) int64 {                        // Σ (p+1) for p in lo…hi-1
		return int64(hi-lo) * int64(lo+hi+1) / 2
	}
	var attn int64
	switch {
	case a.AllPrompt:
		attn += keys(0, g.nPrompt)
	case a.LastPrompt:
		attn += int64(g.nPrompt)
	}
	for _, p := range a.Positions {
		attn += int64(p + 1)
	}
	attn *= perKey
	if a.Generated {
		gen := keys(g.nPrompt, end) * perKey
		if a.KeepBytes > 0 {
			gen = min(gen, a.KeepBytes+int64(end)*perKey)
		}
		attn += gen
	}
	return attn + int64(len(g.opt.MLP))*int64(c.IntermediateSize)*4
}

// wantAttn reports whether the attention of query position pos is captured.
func (g *generation) wantAttn(pos int) bool {
	a := g.opt.Attn
	if pos < g.nPrompt && (a.AllPrompt || a.LastPrompt && pos == g.nPrompt-1) {
		return true
	}
	if slices.Contains(a.Positions, pos) {
		return true
	}
	return pos >= g.nPrompt && a.Generated && (a.GeneratedIf == nil || a.GeneratedIf(pos))
}

// attnFor registers the captures of positions lo…hi-1 and returns them.
func (g *generation) attnFor(lo, hi int) []*trace.Attention {
	g.pr.attn = nil
	var caps []*trace.Attention
	for pos := lo; pos < hi; pos++ {
		if g.wantAttn(pos) {
			if g.pr.attn == nil {
				g.pr.attn = map[int]*trace.Attention{}
			}
			a := g.m.newAttentionCapture(pos)
			g.pr.attn[pos] = a
			caps = append(caps, a)
		}
	}
	return caps
}

// expertsFor asks the probes of an MoE model for the router's choices at
// pos: the token sampled from that forward pass's logits carries them.
func (g *generation) expertsFor(pos int) {
	if g.m.cfg.MoE == nil {
		return
	}
	g.routes = nil
	g.pr.experts = map[int]*[]trace.Routing{pos: &g.routes}
}

// prefill runs the prompt in chunks of prefillChunk tokens and returns the
// logits of its last position.
func (g *generation) prefill(ctx context.Context) ([]float32, error) {
	start := time.Now()
	var logits []float32
	g.expertsFor(g.nPrompt - 1)
	for lo := g.reused; lo < g.nPrompt; lo += prefillChunk {
		hi := min(g.nPrompt, lo+prefillChunk)
		caps := g.attnFor(lo, hi)
		var err error
		if logits, err = g.m.forward(ctx, g.ids[lo:hi], lo, g.pr); err != nil {
			return nil, err
		}
		g.keepAttention(caps)
	}
	g.run.Timing.PrefillSeconds = time.Since(start).Seconds()
	t := g.run.Timing
	g.emit(Event{Prefill: &t})
	return logits, nil
}

// keepAttention adds finished captures to the run and reports them; with
// Attn.KeepBytes the run keeps only the newest generated ones.
func (g *generation) keepAttention(caps []*trace.Attention) {
	for _, a := range caps {
		g.run.Attention = append(g.run.Attention, *a)
		cp := *a
		g.emit(Event{Attention: &cp})
	}
	if len(caps) > 0 && g.opt.Attn.KeepBytes > 0 {
		g.run.Attention = trace.TrimAttention(g.run.Attention, g.opt.Attn.KeepBytes, g.pinnedAttn)
	}
}

// pinnedAttn reports whether the capture of pos is kept whatever
// Attn.KeepBytes says: a prompt position or one asked for by name.
func (g *generation) pinnedAttn(pos int) bool {
	return pos < g.nPrompt || slices.Contains(g.opt.Attn.Positions, pos)
}

// decode samples a token from logits, records and reports it at once,
// and runs it through the model for the next logits, until a stop
// condition. The streamed text is flushed however it ends.
func (g *generation) decode(ctx context.Context, logits []float32) error {
	start := time.Now()
	stream, last := g.m.tok.NewTextStream(g.ids[g.nPrompt-1]), trace.Token{Generated: true}
	defer func() {
		if last.Text = stream.Flush(); last.Text != "" {
			g.emit(Event{Token: &last})
		}
		g.run.Timing.DecodeSeconds = time.Since(start).Seconds()
	}()
	prev := start // when the previous token was chosen (here: prefill ended)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		pos := len(g.ids)
		id := g.sampleStep(logits, pos, &prev)
		if math.IsInf(float64(logits[id]), -1) { // the sampler's NaN, or nothing finite at all
			return fmt.Errorf("%w: the model computed no finite logit for position %d: its weights hold NaN or infinite values", ErrBadFile, pos)
		}
		g.ids = append(g.ids, id)
		reason := g.stopReason(id)
		if reason != "eos" { // the EOS token is not shown (docs/spec/sampling.md §6)
			tok := g.run.Tokens[len(g.run.Tokens)-1] // its flags
			last.ID, last.Pos, last.Special, last.Thinking = id, pos, tok.Special, tok.Thinking
			if tok.Text = stream.Next(id); tok.Text != "" {
				g.emit(Event{Token: &tok})
			}
		}
		if reason != "" {
			g.run.StopReason = reason
			return nil
		}
		caps := g.attnFor(pos, pos+1)
		g.expertsFor(pos)
		var err error
		if logits, err = g.m.forward(ctx, []int{id}, pos, g.pr); err != nil {
			return err
		}
		g.kvReads += float64(g.m.info.KVBytesPerToken) * float64(pos+1)
		g.keepAttention(caps)
	}
}

// sampleStep draws the token of position pos, records it with the time
// since *prev (the previous token's forward pass plus this sampling),
// reports it, and moves *prev to now.
func (g *generation) sampleStep(logits []float32, pos int, prev *time.Time) int {
	raw := g.rawLogits(logits)
	id, top := g.sampler.Sample(logits, g.ids, g.opt.TopN)
	p := g.sampler.ChosenP() // also for a token drawn from outside the top-N
	if b := g.opt.Branch; b != nil && pos-g.nPrompt == b.At {
		id, p = b.Token, forcedP(logits, top, b.Token)
	}
	step := trace.Step{Pos: pos, Chosen: trace.Candidate{ID: id, Text: g.m.TokenText(id)},
		Special: g.m.isSpecial(id), Thinking: g.think.next(id), ModelP: p}
	if raw != nil {
		step.ModelP = probAt(raw, id)
	}
	step.Stages = g.stagesOf(g.sampler.LastStages())
	step.Experts = g.routes // from the pass whose logits chose id
	step.Chosen.P = p
	for _, c := range top {
		step.Top = append(step.Top, trace.Candidate{ID: c.ID, Text: g.m.TokenText(c.ID), P: c.P})
	}
	now := time.Now()
	step.Seconds, *prev = now.Sub(*prev).Seconds(), now
	g.run.Steps = append(g.run.Steps, step)
	g.run.Tokens = append(g.run.Tokens, trace.Token{ID: id, Text: step.Chosen.Text, Pos: pos, Generated: true,
		Special: step.Special, Thinking: step.Thinking})
	g.run.Timing.StepSeconds = append(g.run.Timing.StepSeconds, step.Seconds)
	cp := step
	cp.Top = slices.Clone(step.Top)
	g.emit(Event{Step: &cp})
	return id
}

// rawLogits is a copy of the forward pass's logits when the sampler will
// change them (penalties, temperature) or not work out the chosen token's
// p (no top-N), in the generation's scratch; nil when the sampler's p is
// the model's own: greedy over unpenalised logits.
func (g *generation) rawLogits(logits []float32) []float32 {
	sp := g.sampler.Params()
	if sp.IsGreedy() && sp.RepetitionPenalty == 1 && sp.FrequencyPenalty == 0 && sp.PresencePenalty == 0 && g.opt.TopN > 0 {
		return nil
	}
	g.raw = append(g.raw[:0], logits...)
	return g.raw
}

// probAt is softmax(z)[id] at T = 1, z overwritten (sample.Softmax,
// within about 3e-7 of the float64 softmax); 0 when z has no finite value.
func probAt(z []float32, id int) float64 {
	total := sample.Softmax(z, z)
	if !(total > 0) {
		return 0
	}
	return float64(z[id]) / total
}

// forcedP is the probability of a forced token: its p among the
// recorded candidates, else softmax(logits)[id] (logits kept).
func forcedP(logits []float32, top []sample.Candidate, id int) float64 {
	for _, c := range top {
		if c.ID == id {
			return c.P
		}
	}
	return probAt(slices.Clone(logits), id)
}

// stopReason reports why generation ends after token id ("eos",
// "max_tokens" or "context"), else "".
func (g *generation) stopReason(id int) string {
	switch {
	case slices.Contains(g.eos, id):
		return "eos"
	case len(g.ids)-g.nPrompt >= g.opt.Settings.MaxTokens:
		return "max_tokens"
	case len(g.ids) >= g.m.cfg.MaxPositionEmbeddings:
		return "context"
	}
	return ""
}

// finishTiming fills the decode count and the bytes one decode step reads:
// the weights plus the mean KV cache over the decode passes.
func (g *generation) finishTiming() {
	t := &g.run.Timing
	t.DecodeTokens = len(g.run.Steps)
	for _, s := range g.run.Steps {
		if s.Thinking {
			t.ThinkingTokens++
			t.ThinkingSeconds += s.Seconds
		}
	}
	t.BytesPerToken = float64(g.m.info.WeightBytesPerTok + g.m.info.StateBytes) // a hybrid's state is read every step
	if mi := &g.m.info; g.opt.TopKExperts > 0 {                                 // fewer experts per token read fewer bytes
		t.BytesPerToken -= float64(int64(mi.MoELayers) * int64(mi.ExpertsPerToken-g.opt.TopKExperts) * mi.ExpertBytes)
	}
	if passes := len(g.run.Steps) - 1; passes > 0 && g.kvReads > 0 {
		t.BytesPerToken += g.kvReads / float64(passes)
	}
	for _, c := range g.pr.mlp {
		if c.Values != nil {
			g.run.MLP = append(g.run.MLP, *c)
		}
	}
	g.run.DeltaNet = g.pr.deltaNetRun(g.m.cfg.NumHiddenLayers)
	slices.SortFunc(g.run.MLP, func(a, b trace.MLP) int { return a.Layer*1e9 + a.Pos - (b.Layer*1e9 + b.Pos) })
}
