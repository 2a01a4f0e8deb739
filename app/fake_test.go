package app

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"loupe/engine"
	"loupe/engine/pool"
	"loupe/trace"
)

// fakeBackend is a deterministic stand-in for the engine: one token per
// word, a fixed vocabulary, attention that puts half its weight on the
// first token and the rest on the previous one.
type fakeBackend struct {
	mu      sync.Mutex
	layers  int
	heads   int
	delay   time.Duration // per generated token
	onStep  func(k int)   // called before generating token k (from Generate's goroutine)
	threads int
	closed  bool
	vocab   []string
	// skew gives every head its own share on key 1 (the rest of the half
	// not on the first token goes to the previous key): the grid has a
	// largest cell to find.
	skew bool
	runs int // generations started
	// captured counts the attention captures of generated tokens made
	// (the window asks for some: AttnCapture.GeneratedIf).
	captured int
	info     func(*trace.ModelInfo)
	last     engine.GenerateOptions
	// steps counts the Step events since the last ResetPoolStats: the
	// fake's PoolStats reports them as calls, so a test sees when the
	// window reset the workers' record.
	steps int
	// err, when set, is what Generate returns before it starts.
	err error
}

// PoolStats and ResetPoolStats make the fake a poolReporter, as
// *engine.Model is.
func (f *fakeBackend) PoolStats() pool.Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return pool.Stats{Calls: int64(f.steps), CallerWait: time.Duration(f.steps) * time.Millisecond}
}

func (f *fakeBackend) ResetPoolStats() { f.mu.Lock(); f.steps = 0; f.mu.Unlock() }

// skewShare is head (l, h)'s share on key 1 when skewed.
func (f *fakeBackend) skewShare(l, h int) float32 {
	return 0.5 * float32((l*f.heads+h*5)%17) / 16
}

func newFake() *fakeBackend {
	return &fakeBackend{layers: 4, heads: 8, vocab: []string{"My", " cat", " is", " purple", ".", " But", " my", " friends", " a", "\n"}}
}

func (f *fakeBackend) Info() trace.ModelInfo {
	i := f.info0()
	if f.info != nil {
		f.info(&i)
	}
	return i
}

func (f *fakeBackend) info0() trace.ModelInfo {
	return trace.ModelInfo{Name: "fake", Path: "/fake", Architecture: "Qwen2ForCausalLM", ModelType: "qwen2",
		Layers: f.layers, Heads: f.heads, KVHeads: 2, HeadDim: 16, Hidden: 128, Intermediate: 256,
		Vocab: len(f.vocab), MaxPositions: 4096, TiedEmbeddings: true, DType: "bf16", FileBytes: 1 << 20,
		ParamsEmbedding: 1000, ParamsAttention: 2000, ParamsMLP: 4000, ParamsNorm: 10,
		WeightBytesPerTok: 14000, OutputBytesPerTok: 2000, KVBytesPerToken: 512}
}

func (f *fakeBackend) Encode(text string) []int {
	var ids []int
	for i, w := range strings.Fields(text) {
		id := i % len(f.vocab)
		if f.skew { // words of the vocabulary are their own ids
			for j, v := range f.vocab {
				if strings.TrimSpace(v) == w {
					id = j
				}
			}
		}
		ids = append(ids, id)
	}
	return ids
}

func (f *fakeBackend) TokenText(id int) string { return f.vocab[id%len(f.vocab)] }
func (f *fakeBackend) SetThreads(n int)        { f.mu.Lock(); f.threads = n; f.mu.Unlock() }
func (f *fakeBackend) Close() error            { f.mu.Lock(); f.closed = true; f.mu.Unlock(); return nil }

// attention is the row of query q: 0.5 on key 0, 0.5 on key q-1 (1 on 0 when q = 0... 1).
func (f *fakeBackend) attention(q int) trace.Attention {
	a := trace.Attention{QueryPos: q, Weights: make([][][]float32, f.layers)}
	for l := range a.Weights {
		a.Weights[l] = make([][]float32, f.heads)
		for h := range a.Weights[l] {
			w := make([]float32, q+1)
			w[0] += 0.5
			if f.skew && q >= 2 {
				k := f.skewShare(l, h)
				w[1] += k
				w[q-1] += 0.5 - k
			} else {
				w[max(q-1, 0)] += 0.5
			}
			a.Weights[l][h] = w
		}
	}
	return a
}

func (f *fakeBackend) Generate(ctx context.Context, prompt string, opt engine.GenerateOptions, on func(engine.Event)) (*trace.Run, error) {
	if on == nil {
		on = func(engine.Event) {}
	}
	ids := f.Encode(prompt)
	f.mu.Lock()
	f.runs++
	f.last = opt
	f.mu.Unlock()
	if len(ids) == 0 {
		return nil, fmt.Errorf("fake: empty prompt: %w", engine.ErrSettings)
	}
	if f.err != nil {
		return nil, f.err
	}
	run := &trace.Run{Model: f.Info(), Prompt: prompt, Settings: opt.Settings, StopReason: "max_tokens"}
	for i, id := range ids {
		run.Tokens = append(run.Tokens, trace.Token{ID: id, Text: f.TokenText(id), Pos: i})
	}
	n := len(ids)
	run.Timing = trace.Timing{PrefillTokens: n, PrefillSeconds: 0.01 * float64(n), BytesPerToken: 14512}
	tm := run.Timing
	on(engine.Event{Prefill: &tm})
	for q := range n {
		if opt.Attn.AllPrompt || (opt.Attn.LastPrompt && q == n-1) {
			a := f.attention(q)
			run.Attention = append(run.Attention, a)
			on(engine.Event{Attention: &a})
		}
	}
	for k := range opt.Settings.MaxTokens {
		if f.onStep != nil {
			f.onStep(k)
		}
		if ctx.Err() != nil {
			run.StopReason = "cancelled"
			break
		}
		time.Sleep(f.delay)
		pos := n + k
		// Heads switched off keep the first token and lower its
		// probability by 1 point a head; later tokens move by one id a head.
		off := len(opt.Ablate)
		id := (pos*3 + min(k, 1)*off) % len(f.vocab)
		step := trace.Step{Pos: pos, Seconds: 0.02}
		for c := range len(f.vocab) {
			cid := (id + c) % len(f.vocab)
			p := 0.5 / float64(int(1)<<c)
			if c == 0 {
				p -= 0.01 * float64(off)
			}
			step.Top = append(step.Top, trace.Candidate{ID: cid, Text: f.TokenText(cid), P: p})
		}
		step.Chosen = step.Top[0]
		tok := trace.Token{ID: id, Text: f.TokenText(id), Pos: pos, Generated: true}
		run.Steps = append(run.Steps, step)
		run.Tokens = append(run.Tokens, tok)
		run.Timing.DecodeTokens++
		run.Timing.DecodeSeconds += 0.02
		run.Timing.StepSeconds = append(run.Timing.StepSeconds, 0.02)
		f.mu.Lock()
		f.steps++
		f.mu.Unlock()
		on(engine.Event{Step: &step})
		on(engine.Event{Token: &tok})
		if opt.Attn.Generated && (opt.Attn.GeneratedIf == nil || opt.Attn.GeneratedIf(pos)) {
			a := f.attention(pos)
			run.Attention = append(run.Attention, a)
			on(engine.Event{Attention: &a})
			f.mu.Lock()
			f.captured++
			f.mu.Unlock()
			// As the engine: the run keeps the newest within KeepBytes.
			run.Attention = trace.TrimAttention(run.Attention, opt.Attn.KeepBytes, func(p int) bool { return p < n })
		}
	}
	for _, mc := range opt.MLP {
		if mc.Pos < len(run.Tokens)-1 || mc.Pos < n {
			v := make([]float32, 256)
			for i := range v {
				v[i] = float32((i*7+mc.Pos+mc.Layer)%13) - 6 // deterministic, signed
			}
			run.MLP = append(run.MLP, trace.MLP{Layer: mc.Layer, Pos: mc.Pos, Values: v})
		}
	}
	return run, nil
}
