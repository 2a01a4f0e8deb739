package engine

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"loupe/trace"
)

// genModel loads a tiny bf16 model with the real tokenizer and a 64-token
// context, with its reference tensors.
func genModel(t *testing.T) (*Model, refTensors, Config) {
	t.Helper()
	cfg := loadConfig()
	cfg.MaxPositionEmbeddings = 64
	ref := randomTensors(cfg, 61)
	m, err := Load(writeModel(t, cfg, ref, "BF16", nil), LoadOptions{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, ref, cfg
}

func greedy(maxTokens int) GenerateOptions {
	o := DefaultGenerateOptions()
	o.Settings.MaxTokens = maxTokens
	o.EOS = []int{-1} // random weights: never stop early
	return o
}

func argmax(v []float64) (best int, margin float64) {
	second := math.Inf(-1)
	for i, x := range v {
		if x > v[best] {
			best, second = i, v[best]
		} else if i != best && x > second {
			second = x
		}
	}
	return best, v[best] - second
}

// Greedy decoding follows the float64 reference's argmax at every step.
func TestGenerateGreedyMatchesReference(t *testing.T) {
	m, ref, cfg := genModel(t)
	run, err := m.Generate(context.Background(), "Once upon a time", greedy(6), nil)
	if err != nil {
		t.Fatal(err)
	}
	if run.StopReason != "max_tokens" || len(run.Steps) != 6 {
		t.Fatalf("stop %q after %d steps, want max_tokens after 6", run.StopReason, len(run.Steps))
	}
	ids := m.Encode("Once upon a time")
	for i, step := range run.Steps {
		want := refForward(cfg, ref, ids, refOptions{})
		id, margin := argmax(want.logits[len(ids)-1])
		if margin > 1e-3 && step.Chosen.ID != id {
			t.Fatalf("step %d: chose %d, reference argmax %d (margin %.3g)", i, step.Chosen.ID, id, margin)
		}
		if step.Pos != len(ids) || len(step.Top) != 10 || step.Top[0].ID != step.Chosen.ID || step.Chosen.P <= 0 {
			t.Fatalf("step %d: %+v", i, step)
		}
		ids = append(ids, step.Chosen.ID)
	}
	if len(run.Tokens) != len(ids) || !run.Tokens[len(ids)-1].Generated || run.Tokens[0].Generated {
		t.Fatalf("tokens %+v", run.Tokens)
	}
	tm := run.Timing
	if tm.PrefillTokens != 4 || tm.PrefillSeconds <= 0 || tm.DecodeTokens != 6 || len(tm.StepSeconds) != 6 ||
		tm.BytesPerToken <= float64(run.Model.WeightBytesPerTok) || run.Settings.Kernels == "" || run.Settings.Threads != 2 {
		t.Fatalf("timing %+v settings %+v", tm, run.Settings)
	}
}

func TestGenerateEventsAndAttention(t *testing.T) {
	m, _, cfg := genModel(t)
	var steps, prefills int
	var text strings.Builder
	var attnPos []int
	run, err := m.Generate(context.Background(), "Hello world", greedy(4), func(e Event) {
		switch {
		case e.Prefill != nil:
			prefills++
		case e.Step != nil:
			steps++
		case e.Token != nil:
			text.WriteString(e.Token.Text)
		case e.Attention != nil:
			attnPos = append(attnPos, e.Attention.QueryPos)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if prefills != 1 || steps != 4 {
		t.Fatalf("%d prefill and %d step events", prefills, steps)
	}
	var gen []int
	for _, tk := range run.Tokens[2:] {
		gen = append(gen, tk.ID)
	}
	if want := m.Tokenizer().Decode(gen); text.String() != want {
		t.Fatalf("streamed %q, want %q", text.String(), want)
	}
	// Last prompt token (1), then the generated ones that were run (2, 3, 4);
	// the last generated token is never run through the model.
	if len(attnPos) != 4 || attnPos[0] != 1 || attnPos[3] != 4 || len(run.Attention) != 4 {
		t.Fatalf("attention positions %v", attnPos)
	}
	for _, a := range run.Attention {
		for l := range cfg.NumHiddenLayers {
			var sum float64
			for _, p := range a.Weights[l][0] {
				sum += float64(p)
			}
			if len(a.Weights[l][0]) != a.QueryPos+1 || math.Abs(sum-1) > 1e-5 {
				t.Fatalf("pos %d layer %d: %d weights summing to %v", a.QueryPos, l, len(a.Weights[l][0]), sum)
			}
		}
	}
}

// With Attn.KeepBytes the run keeps the last prompt token and the newest
// generated captures within the budget, however many tokens it writes, and
// still reports every capture as an event.
func TestGenerateKeepBytesBoundsAttention(t *testing.T) {
	m, _, cfg := genModel(t)
	opt := greedy(40)
	perKey := int64(cfg.NumHiddenLayers * cfg.NumAttentionHeads * 4) // bytes a capture takes per key
	opt.Attn.KeepBytes = 100 * perKey                                // ~2 captures at position 40
	opt.Attn.Positions = []int{5}
	events := 0
	run, err := m.Generate(context.Background(), "Hello world", opt, func(e Event) {
		if e.Attention != nil {
			events++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	var kept []int
	var free int64
	for _, a := range run.Attention {
		kept = append(kept, a.QueryPos)
		if a.QueryPos >= 2 && a.QueryPos != 5 {
			free += a.Bytes()
		}
	}
	// Prompt "Hello world" is 2 tokens: captures 1 (last prompt), 2…40
	// (the last token, 41, is never run through the model).
	if events != 40 {
		t.Errorf("%d attention events, want 40 (every capture is reported)", events)
	}
	if free > opt.Attn.KeepBytes || len(kept) < 3 || kept[0] != 1 || kept[1] != 5 || kept[len(kept)-1] != 40 {
		t.Errorf("kept positions %v (%d bytes of generated ones, budget %d): want 1, 5 and the newest up to 40",
			kept, free, opt.Attn.KeepBytes)
	}
}

func TestGenerateStops(t *testing.T) {
	m, _, _ := genModel(t)
	ctx := context.Background()
	first, err := m.Generate(ctx, "The cat", greedy(5), nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := m.Generate(ctx, "The cat", greedy(5), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range first.Steps {
		if first.Steps[i].Chosen.ID != again.Steps[i].Chosen.ID {
			t.Fatalf("second Generate differs at step %d: the KV cache was not reset", i)
		}
	}
	opt := greedy(5)
	opt.EOS = []int{first.Steps[2].Chosen.ID}
	var streamed strings.Builder
	run, err := m.Generate(ctx, "The cat", opt, func(e Event) {
		if e.Token != nil {
			streamed.WriteString(e.Token.Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	n := len(run.Steps)
	if run.StopReason != "eos" || n > 3 || run.Steps[n-1].Chosen.ID != opt.EOS[0] {
		t.Fatalf("stop %q after %d steps, want eos after ≤ 3", run.StopReason, n)
	}
	var shown []int // the generated tokens before the EOS
	for _, s := range run.Steps[:n-1] {
		shown = append(shown, s.Chosen.ID)
	}
	if want := m.Tokenizer().Decode(shown); streamed.String() != want {
		t.Fatalf("streamed %q, want %q (the EOS token is not shown)", streamed.String(), want)
	}
}

func TestGenerateCancelStopsWithinOneToken(t *testing.T) {
	m, _, _ := genModel(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	steps := 0
	run, err := m.Generate(ctx, "The cat", greedy(20), func(e Event) {
		if e.Step != nil {
			if steps++; steps == 2 {
				cancel()
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if run.StopReason != "cancelled" || len(run.Steps) > 3 {
		t.Fatalf("stop %q after %d steps, want cancelled within one token of step 2", run.StopReason, len(run.Steps))
	}
}

func TestGenerateRefusals(t *testing.T) {
	m, _, _ := genModel(t)
	long := strings.Repeat("word ", 80) // 81 tokens, context 64
	bad := func(edit func(*GenerateOptions)) GenerateOptions { o := greedy(4); edit(&o); return o }
	for _, tc := range []struct {
		name, prompt string
		opt          GenerateOptions
		want         error
		text         string
	}{
		{"long prompt", long, greedy(4), ErrContext, "the prompt's 81 tokens fill its context of 64 tokens: shorten the prompt"},
		{"max_tokens alone", "Hello", greedy(64), ErrContext, "max_tokens 64 is more than its context of 64 tokens (prompt included): lower max tokens"},
		{"prompt + max_tokens", "Hello world", greedy(63), ErrContext, "2 prompt tokens + 63 max_tokens = 65, the model's context is 64: lower max tokens to 62"},
		{"empty prompt", "", greedy(4), ErrContext, "empty"},
		{"max tokens", "Hello", greedy(0), ErrSettings, "max_tokens"},
		{"ablate", "Hello", bad(func(o *GenerateOptions) { o.Ablate = []trace.Head{{Layer: 2, Head: 0}} }), ErrSettings, "ablated head 2:0"},
		{"mlp", "Hello", bad(func(o *GenerateOptions) { o.MLP = []MLPCapture{{Layer: -1}} }), ErrSettings, "MLP"},
		{"temperature", "Hello", bad(func(o *GenerateOptions) { o.Settings.Temperature = -1 }), ErrSettings, "temperature"},
	} {
		_, err := m.Generate(context.Background(), tc.prompt, tc.opt, nil)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: error %v, want %v naming %q", tc.name, err, tc.want, tc.text)
		}
	}
}

func TestGenerateProbes(t *testing.T) {
	m, ref, cfg := genModel(t)
	ids := m.Encode("Hello world")
	opt := greedy(2)
	opt.MLP = []MLPCapture{{Layer: 1, Pos: 1}, {Layer: 0, Pos: 0}}
	opt.Attn = AttnCapture{AllPrompt: true}
	opt.Ablate = []trace.Head{{Layer: 0, Head: 3}}
	run, err := m.Generate(context.Background(), "Hello world", opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := refForward(cfg, ref, ids, refOptions{ablate: map[[2]int]bool{{0, 3}: true}})
	if len(run.MLP) != 2 || run.MLP[0].Layer != 0 || run.MLP[1].Layer != 1 {
		t.Fatalf("MLP captures %+v", run.MLP)
	}
	for _, c := range run.MLP {
		if d := maxRelDiff(c.Values, want.mlp[c.Layer][c.Pos]); d > logitTol {
			t.Fatalf("MLP layer %d pos %d differs from the ablated reference by %.3g", c.Layer, c.Pos, d)
		}
	}
	if len(run.Attention) != len(ids) || len(run.Settings.Ablate) != 1 {
		t.Fatalf("%d attention captures for %d prompt tokens; ablate %v", len(run.Attention), len(ids), run.Settings.Ablate)
	}
}

// A prompt longer than prefillChunk is prefilled in two chunks; the first
// token and the last prompt row's attention still match the reference.
func TestGenerateLongPromptInChunks(t *testing.T) {
	cfg := loadConfig()
	cfg.MaxPositionEmbeddings = 1024
	ref := randomTensors(cfg, 67)
	m, err := Load(writeModel(t, cfg, ref, "F32", nil), LoadOptions{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	prompt := strings.Repeat("the cat sat on the mat. ", 90)
	ids := m.Encode(prompt)
	if len(ids) <= prefillChunk {
		t.Fatalf("prompt has %d tokens, want more than %d", len(ids), prefillChunk)
	}
	run, err := m.Generate(context.Background(), prompt, greedy(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := refForward(cfg, ref, ids, refOptions{lastOnly: true})
	last := len(ids) - 1
	if id, margin := argmax(want.logits[last]); margin > 1e-3 && run.Steps[0].Chosen.ID != id {
		t.Fatalf("first token %d, reference argmax %d (margin %.3g)", run.Steps[0].Chosen.ID, id, margin)
	}
	a := run.Attention[0]
	if a.QueryPos != last {
		t.Fatalf("captured position %d, want %d", a.QueryPos, last)
	}
	for l := range cfg.NumHiddenLayers {
		for qh := range cfg.NumAttentionHeads {
			for k, p := range a.Weights[l][qh] {
				if d := math.Abs(float64(p) - want.attn[l][qh][last][k]); d > 1e-5 {
					t.Fatalf("layer %d head %d key %d: weight %v, reference %v", l, qh, k, p, want.attn[l][qh][last][k])
				}
			}
		}
	}
}

// cancelAfter is a context whose Err turns to Canceled after n calls, so a
// test can stop a forward pass in the middle, between two layers.
type cancelAfter struct {
	context.Context
	n int
}

func (c *cancelAfter) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

func TestPrefillStopsBetweenLayers(t *testing.T) {
	m, _, _ := genModel(t)
	ctx := &cancelAfter{Context: context.Background(), n: 1} // the first layer runs, the second does not
	run, err := m.Generate(ctx, "Hello world, this is a prompt", greedy(5), nil)
	if err != nil {
		t.Fatal(err)
	}
	if run.StopReason != "cancelled" || len(run.Steps) != 0 || ctx.n != -1 {
		t.Fatalf("stop %q after %d steps and %d checks past the limit", run.StopReason, len(run.Steps), -ctx.n)
	}
}

// A warm-up leaves nothing a later run sees: the same generation on a fresh
// model and on one warmed up has the same tokens and bit-identical top-10,
// also for a chat turn that asks to reuse the cache (its prompt begins with
// the warm-up's text, whose keys must not be reused).
func TestWarmUpChangesNothing(t *testing.T) {
	for _, reuse := range []bool{false, true} {
		fresh, _, _ := genModel(t)
		warm, _, _ := genModel(t)
		if err := warm.WarmUp(context.Background()); err != nil {
			t.Fatal(err)
		}
		opt := greedy(5)
		opt.ReuseCache = reuse
		a, err := fresh.Generate(context.Background(), warmUpPrompt+" the oven", opt, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := warm.Generate(context.Background(), warmUpPrompt+" the oven", opt, nil)
		if err != nil {
			t.Fatal(err)
		}
		if b.Timing.ReusedTokens != 0 || a.Timing.ReusedTokens != 0 || len(a.Steps) != len(b.Steps) {
			t.Fatalf("reuse %v: reused %d and %d tokens (want 0), %d vs %d steps", reuse,
				b.Timing.ReusedTokens, a.Timing.ReusedTokens, len(b.Steps), len(a.Steps))
		}
		for i := range a.Steps {
			for k := range a.Steps[i].Top {
				if a.Steps[i].Top[k] != b.Steps[i].Top[k] {
					t.Fatalf("reuse %v, step %d, rank %d: %+v after a warm-up, %+v fresh", reuse, i, k,
						b.Steps[i].Top[k], a.Steps[i].Top[k])
				}
			}
		}
	}
}

// A sampled token's probability is the one it was drawn with, also when it
// is not among the top-N candidates recorded (the comparison's Δp reads it):
// here against the float64 reference softmax of the logits at T = 1.5.
func TestGenerateSampledChosenP(t *testing.T) {
	m, ref, cfg := genModel(t)
	opt := greedy(12)
	opt.Settings.Temperature, opt.Settings.Seed, opt.TopN = 1.5, 3, 2
	run, err := m.Generate(context.Background(), "Once upon a time", opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	ids, outside := m.Encode("Once upon a time"), 0
	for i, step := range run.Steps {
		z := refForward(cfg, ref, ids, refOptions{}).logits[len(ids)-1]
		zmax, sum := math.Inf(-1), 0.0
		for _, v := range z {
			zmax = math.Max(zmax, v/1.5)
		}
		for _, v := range z {
			sum += math.Exp(v/1.5 - zmax)
		}
		want := math.Exp(z[step.Chosen.ID]/1.5-zmax) / sum
		if math.Abs(step.Chosen.P-want) > 1e-3*want {
			t.Fatalf("step %d: token %d has P %.6g, reference %.6g", i, step.Chosen.ID, step.Chosen.P, want)
		}
		if step.Top[0].ID != step.Chosen.ID && step.Top[1].ID != step.Chosen.ID {
			outside++
		}
		ids = append(ids, step.Chosen.ID)
	}
	if outside == 0 {
		t.Fatal("no token was drawn from outside the top 2: the test does not reach that case")
	}
}

// Weights holding NaN make every logit NaN: the run stops with an error
// naming the cause, instead of writing token 0 again and again.
func TestGenerateRefusesNaNLogits(t *testing.T) {
	cfg := loadConfig()
	cfg.MaxPositionEmbeddings = 64
	ref := randomTensors(cfg, 61)
	ref.val["model.norm.weight"][0] = math.NaN()
	m, err := Load(writeModel(t, cfg, ref, "F32", nil), LoadOptions{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	_, err = m.Generate(context.Background(), "Once upon a time", greedy(3), nil)
	if !errors.Is(err, ErrBadFile) || !strings.Contains(err.Error(), "no finite logit") {
		t.Fatalf("NaN weights: %v, want ErrBadFile naming the logits", err)
	}
}
