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

// generateOptions builds the engine options for one generation.
func generateOptions(s trace.Settings, promptLen int) engine.GenerateOptions {
	opt := engine.DefaultGenerateOptions()
	opt.Settings = s
	opt.Attn.AllPrompt = promptLen <= allPromptLimit
	return opt
}
