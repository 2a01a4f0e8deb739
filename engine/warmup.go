package engine

import "context"

// warmUpPrompt is what WarmUp runs: any text the tokenizer encodes.
const warmUpPrompt = "Warm up"

// WarmUp runs one short generation and forgets it, as llama.cpp does after
// loading a model. A process's first forward pass is slower than the ones
// after it: on the 1.5B bf16 shape (2 cores, AVX2) the window's 17-token
// prefill, its first run, came out at 0.79-0.80 × `loupe bench`'s, whose
// timed run follows a warm-up; with WarmUp after loading, 0.89-1.01 ×
// (three interleaved pairs each, scripts/window-bench.sh). The cost (one
// forward pass of a few tokens) moves into loading, where the user waits
// anyway, out of the first answer. The run leaves nothing a later one
// reads: the cache's record of its tokens is emptied, so a chat turn
// (ReuseCache) reuses none of them.
func (m *Model) WarmUp(ctx context.Context) error {
	opt := DefaultGenerateOptions()
	opt.TopN, opt.Attn = 0, AttnCapture{}
	opt.Settings.MaxTokens = 1
	opt.EOS = []int{} // not nil: nil means the model's stop ids
	_, err := m.Generate(ctx, warmUpPrompt, opt, nil)
	m.kv.ids = m.kv.ids[:0]
	return err
}
