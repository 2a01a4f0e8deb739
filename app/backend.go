package app

import (
	"context"

	"loupe/engine"
	"loupe/trace"
)

// Backend is what the window needs from a loaded model; *engine.Model
// satisfies it, and tests use a fake.
type Backend interface {
	Info() trace.ModelInfo
	Encode(text string) []int
	TokenText(id int) string
	Generate(ctx context.Context, prompt string, opt engine.GenerateOptions, onEvent func(engine.Event)) (*trace.Run, error)
	SetThreads(n int)
	Close() error
}

// Loader opens the model at path, reporting progress in [0, 1].
type Loader func(path string, progress func(frac float64, what string)) (Backend, error)

// promptTokens turns the prompt's ids into the tokens the stream shows
// before the first generated token arrives.
func promptTokens(b Backend, ids []int) []trace.Token {
	toks := make([]trace.Token, len(ids))
	for i, id := range ids {
		toks[i] = trace.Token{ID: id, Text: b.TokenText(id), Pos: i}
	}
	return toks
}

// allPromptLimit is the longest prompt whose every position gets its
// attention captured: 256 positions × 28 layers × 12 heads × ≤ 256 keys
// × 4 bytes is ≤ 88 MB, the most we keep per run.
const allPromptLimit = 256

// attnBudget bounds the attention captures of generated tokens a run
// keeps: the newest ones that fit, any answer's length; the others are
// recomputed from the KV cache when looked at (attentionOnDemand). A
// capture is layers × heads × (pos+1) floats: Qwen2.5-1.5B at position
// 3,000, 4 MB; 8 MB is the last two of a long answer, every one of a short
// answer on the demo model. While the run goes on the window shows the
// newest token: the captures on their way to it and those it holds until
// the run ends (and its own record replaces them) weigh liveAttnBudget
// each, beside the newest one.
const (
	attnBudget     = 8 << 20
	liveAttnBudget = 4 << 20
)

// generateOptions builds the engine options for one generation.
func generateOptions(s trace.Settings, info trace.ModelInfo, promptLen int) engine.GenerateOptions {
	opt := engine.DefaultGenerateOptions()
	opt.Settings = s
	opt.Stages = samplerStagesShown // the Sampler tab
	opt.Ablate = s.Ablate
	opt.DisableExperts, opt.TopKExperts = s.DisableExperts, s.TopKExperts
	opt.Branch = s.Branch // a branch from a token (branch.go)
	opt.Attn.AllPrompt = promptLen <= allPromptLimit
	opt.Attn.KeepBytes = attnBudget
	opt.MLP = mlpCaptures(info.Layers, info.Intermediate, promptLen, s.MaxTokens)
	return opt
}

// mlpBudget bounds the MLP values one run keeps: every layer's
// silu(gate)·up (intermediate floats) per captured position. The other
// positions are recomputed when looked at (mlpOnDemand).
const mlpBudget = 8 << 20

// mlpCaptures records every layer at as many positions as the budget
// allows: the last prompt token, then the generated ones, then the prompt
// from its end. Qwen2.5-1.5B: 28 × 8,960 × 4 B = 1 MB a position, 8 of
// them; the demo model keeps every position.
func mlpCaptures(layers, intermediate, nPrompt, maxTokens int) []engine.MLPCapture {
	per := layers * intermediate * 4
	if per <= 0 || nPrompt <= 0 {
		return nil
	}
	n := mlpBudget / per
	var pos []int
	pos = append(pos, nPrompt-1)
	for p := nPrompt; p < nPrompt+maxTokens-1 && len(pos) < n; p++ {
		pos = append(pos, p) // the last generated token is never read back
	}
	for p := nPrompt - 2; p >= 0 && len(pos) < n; p-- {
		pos = append(pos, p)
	}
	out := make([]engine.MLPCapture, 0, len(pos)*layers)
	for _, p := range pos {
		for l := range layers {
			out = append(out, engine.MLPCapture{Layer: l, Pos: p})
		}
	}
	return out
}
