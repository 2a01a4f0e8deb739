// Package engine runs decoder-only language models on the CPU: the
// Qwen2/Qwen2.5, Qwen3, Qwen3.5 (Gated DeltaNet hybrid) and Llama families
// and the mixture-of-experts OLMoE, Qwen3-MoE and Qwen3.5-MoE, from a
// Hugging Face folder (load.go) or a GGUF file (gguf_load.go). It
// tokenizes (engine/tokenizer, engine/chat), computes the forward pass with
// the kernels package, one short file per architecture over shared blocks
// (engine/ARCH.md maps every file), samples (engine/sample), and records
// what the panels show (trace.Run): attention, the logit lens, the MLP,
// the router's choice, timings.
//
// The API is synchronous; the caller owns concurrency and cancels through
// the context given to Generate. SupportedFiles says what it opens.
package engine

import (
	"errors"
	"loupe/kernels"

	"loupe/trace"
)

// Sentinel errors; wrapped errors carry the file, tensor or setting.
var (
	ErrUnsupported = errors.New("unsupported model")      // architecture or setting the engine cannot run
	ErrBadFile     = errors.New("bad model file")         // malformed safetensors, config or tokenizer
	ErrTooLarge    = errors.New("model too large")        // more than the machine's memory
	ErrContext     = errors.New("too long for the model") // prompt + max tokens beyond the context
	ErrSettings    = errors.New("invalid settings")       // sampling or probe settings out of range
)

// LoadOptions tune Load.
type LoadOptions struct {
	Threads  int                             // workers for the forward pass; 0: physical cores
	Progress func(frac float64, what string) // called during loading, may be nil
}

// AttnCapture chooses the query positions whose attention is recorded.
type AttnCapture struct {
	LastPrompt bool  // the last prompt token
	Generated  bool  // every generated token
	AllPrompt  bool  // every prompt position (prompts of at most 512 tokens)
	Positions  []int // any other positions
	// KeepBytes, when > 0, bounds the attention of generated positions the
	// run keeps: the newest captures that fit in KeepBytes (at least the
	// newest one), the older ones dropped as the run goes on. Every capture
	// is still reported by an Event. Prompt positions and Positions are
	// always kept. A capture is L·H·(pos+1) floats, so keeping all of them
	// costs memory that grows with the square of the answer (a 28 × 12
	// model, 3,000 tokens: 6 GB).
	KeepBytes int64
	// GeneratedIf, when set, narrows Generated to the positions it returns
	// true for: a window that draws the newest capture once a frame asks
	// for the next one only once it has taken the last, instead of copying
	// megabytes a token that nobody sees. Called on Generate's goroutine
	// before each decode step.
	GeneratedIf func(pos int) bool
}

// MLPCapture names one (layer, position) whose silu(gate)·up is recorded.
type MLPCapture struct{ Layer, Pos int }

// GenerateOptions set the sampler and the probes of one generation.
type GenerateOptions struct {
	Settings trace.Settings // sampling knobs, max tokens, seed; Temperature 0 is greedy
	TopN     int            // candidates recorded per step (0: none; DefaultGenerateOptions: 10)
	Stages   int            // candidates whose sampler stages are recorded per step (0: none)
	Attn     AttnCapture
	MLP      []MLPCapture
	Ablate   []trace.Head // heads whose output is zeroed before o_proj
	// DisableExperts masks experts out of the router's top-k (logit −∞,
	// then softmax, top-k and renormalisation as the model does:
	// docs/spec/moe.md §6 "mask"); TopKExperts > 0 runs that many experts
	// per token instead of the model's k (1…k). MoE models only.
	DisableExperts []trace.Expert
	TopKExperts    int
	EOS            []int // stop ids; nil: from generation_config.json / config.json
	// ReuseCache keeps the keys and values of the longest prefix the prompt
	// shares with the tokens already in the KV cache (the previous turns of
	// a chat) instead of reading it again. The prefix stops before the
	// first prompt position named in Attn.Positions; Attn.AllPrompt and
	// the MLP captures then get only the prompt positions read.
	ReuseCache bool
	// Branch forces written token Branch.At to be Branch.Token: the step
	// records the model's top candidates as usual, the forced token as the
	// choice (with its probability), and the run continues from it.
	Branch *trace.Branch
	// Kernels is the arithmetic of this run (kernels.ChoiceOf names it):
	// the run switches to it, reports it in Settings.Kernels and
	// Settings.Arithmetic, and switches back when it ends. The zero
	// Choice runs the kernels in use (kernels.Current).
	Kernels kernels.Choice
}

// Event reports progress during Generate. Exactly one of the pointer
// fields is set. Everything in it is a copy.
type Event struct {
	Prefill   *trace.Timing    // prefill finished (tokens, seconds)
	Step      *trace.Step      // a token was generated
	Token     *trace.Token     // the generated token as text (streamed UTF-8)
	Attention *trace.Attention // a captured attention row became available
}

// DefaultGenerateOptions is greedy decoding of 100 tokens with the top-10
// and the attention of the last prompt token and every generated token.
func DefaultGenerateOptions() GenerateOptions {
	return GenerateOptions{
		Settings: trace.Settings{MaxTokens: 100},
		TopN:     10,
		Attn:     AttnCapture{LastPrompt: true, Generated: true},
	}
}

// The Model API:
//
//	func Load(path string, opt LoadOptions) (*Model, error)            // load.go
//	func (m *Model) Generate(ctx, prompt, opt, onEvent) (*trace.Run, error) // generate.go
//	func (m *Model) GenerateBatch(ctx, prompts, opt, onEvent) (*BatchRun, error) // batch.go: several sequences, one pass a step
//	func (m *Model) ChatTemplate() (*chat.Template, error)               // chat.go
//	func (m *Model) RenderChat(msgs, think) (text string, ids []int, err error)
//	func (m *Model) GenerateChat(ctx, msgs, think, opt, onEvent) (*trace.Run, error)
//	func (m *Model) Reply(run *trace.Run) string
//	func (m *Model) SamplingPresets() []chat.Preset
//	func (m *Model) Close() error                                      // info.go
//	func (m *Model) Info() trace.ModelInfo
//	func (m *Model) Encode(text string) []int
//	func (m *Model) TokenText(id int) string
//	func (m *Model) Tokenizer() *tokenizer.Tokenizer
//	func (m *Model) EOS() []int
//	func (m *Model) Embedding(id int) []float32                        // model.go
//	func (m *Model) SetThreads(n int)
//	func (m *Model) Threads() int
//	func (m *Model) Arithmetic() string  // fp32, bf16, int8, int8+prefill or bf16+int8 at the active kernels
//	func (m *Model) Config() Config
//
// Generate's timing: PrefillSeconds covers the prompt's forward pass;
// DecodeTokens is the number of generated tokens and DecodeSeconds the
// wall time from the end of prefill to the last token (the last token is
// sampled but never run through the model). Step.Seconds is the time from
// the previous token to this one: the previous token's forward pass plus
// sampling (for the first token, sampling only). A Step event is sent as
// soon as its token is chosen, before the token's own forward pass.
