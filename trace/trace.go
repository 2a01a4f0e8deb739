// Package trace holds what a generation records, as plain data: the tokens,
// the top candidates of every step, the captured attention and MLP values, the
// timings. The engine fills it; viz and views read it without importing the
// engine. Everything here is a copy the engine no longer touches.
package trace

// Token is one position of the sequence.
type Token struct {
	ID        int    `json:"id"`
	Text      string `json:"text"` // decoded piece (may be a partial UTF-8 sequence shown as U+FFFD)
	Pos       int    `json:"pos"`
	Generated bool   `json:"generated"`
	Special   bool   `json:"special"`  // an added (control) token: <|im_start|>, <|im_end|>, <think>, …
	Thinking  bool   `json:"thinking"` // inside a <think>…</think> block, the markers included
}

// Candidate is a token with the probability the sampler gave it.
type Candidate struct {
	ID   int     `json:"id"`
	Text string  `json:"text"`
	P    float64 `json:"p"`
}

// Step is one generated token: the distribution it was drawn from (top-k
// after temperature and penalties, before truncation) and the choice.
type Step struct {
	Pos    int       `json:"pos"` // position of the generated token
	Chosen Candidate `json:"chosen"`
	// ModelP is the model's own probability of the chosen token: softmax
	// at T = 1 of the forward pass's logits, before penalties, temperature
	// and truncation (Chosen.P is the sampler's). 0: not recorded.
	ModelP  float64     `json:"model_p,omitempty"`
	Top     []Candidate `json:"top10"`
	Seconds float64     `json:"seconds"` // wall time of this step
	// The chosen token's flags, as in Token.
	Special  bool `json:"special"`
	Thinking bool `json:"thinking"`
	// Stages is what each sampler stage did (GenerateOptions.Stages > 0).
	Stages *SamplerStages `json:"sampler_stages,omitempty"`
	// Experts is the router's choice in each MoE layer in the forward
	// pass whose logits chose this token (MoE models only).
	Experts []Routing `json:"experts,omitempty"`
}

// Attention is the softmax weights of every layer × head for one query
// position over keys 0..QueryPos: Weights[layer][head][key].
type Attention struct {
	QueryPos int           `json:"query_pos"`
	Weights  [][][]float32 `json:"weights"`
}

// MLP is the gated activation silu(gate)·up (length intermediate_size) of
// one layer at one position.
type MLP struct {
	Layer  int       `json:"layer"`
	Pos    int       `json:"pos"`
	Values []float32 `json:"values"`
}

// Timing splits the wait into reading (prefill) and writing (decode).
type Timing struct {
	PrefillTokens  int       `json:"prefill_tokens"`
	PrefillSeconds float64   `json:"prefill_seconds"`
	DecodeTokens   int       `json:"decode_tokens"`
	DecodeSeconds  float64   `json:"decode_seconds"`
	StepSeconds    []float64 `json:"step_seconds"`
	// BytesPerToken is what one decode step reads: weights plus the mean KV
	// cache over the run.
	BytesPerToken float64 `json:"bytes_per_token"`
	// ReusedTokens are prompt tokens whose keys and values were kept from
	// the previous generation (a chat's shared prefix): not in
	// PrefillTokens, not read again.
	ReusedTokens int `json:"reused_tokens"`
	// ThinkingTokens of the DecodeTokens were written inside a think
	// block, in ThinkingSeconds of the DecodeSeconds; the rest is the answer.
	ThinkingTokens  int     `json:"thinking_tokens"`
	ThinkingSeconds float64 `json:"thinking_seconds"`
	// Kernels and Arithmetic are the run's Settings' (level, "fp32" or
	// "bf16"): the Timing bars say what each bar was computed with.
	Kernels    string `json:"kernels,omitempty"`
	Arithmetic string `json:"arithmetic,omitempty"`
	// QuantArithmetic names a quantised file's formats and how decode
	// multiplied each (engine.Model.QuantArithmetic); empty otherwise.
	QuantArithmetic string `json:"quant_arithmetic,omitempty"`
}

// DecodePasses is the forward passes that writing decodeTokens tokens
// runs: the first token is sampled from prefill's logits and the last one
// is never fed back, so n tokens cost n−1 passes (llama-bench's tg counts
// passes). Decode rates of bytes read divide these by DecodeSeconds.
func DecodePasses(decodeTokens int) int { return max(decodeTokens-1, 0) }

// Head names one attention head.
type Head struct {
	Layer int `json:"layer"`
	Head  int `json:"head"`
}

// Settings are the knobs a run used.
type Settings struct {
	MaxTokens       int     `json:"max_tokens"`
	Temperature     float64 `json:"temperature"` // 0: greedy
	TopK            int     `json:"top_k"`
	TopP            float64 `json:"top_p"`
	MinP            float64 `json:"min_p"`
	PresencePenalty float64 `json:"presence_penalty"`
	RepeatPenalty   float64 `json:"repetition_penalty"`
	Seed            uint64  `json:"seed"`
	Threads         int     `json:"threads"`
	Kernels         string  `json:"kernels"`
	// Arithmetic is the products the run computed: "fp32", or "bf16" where
	// prefill rounded activations to bf16 (kernels.Arithmetic).
	Arithmetic string `json:"arithmetic,omitempty"`
	// QuantArithmetic names a quantised file's formats and how decode
	// multiplied each (engine.Model.QuantArithmetic); empty otherwise.
	QuantArithmetic string `json:"quant_arithmetic,omitempty"`
	Ablate          []Head `json:"ablate,omitempty"`
	// DisableExperts are experts masked out of the router's choice (its
	// logit set to −∞: the next best runs instead, weights renormalised as
	// the model does); TopKExperts > 0 runs that many experts per token
	// instead of the model's k (mixture-of-experts models).
	DisableExperts []Expert `json:"disable_experts,omitempty"`
	TopKExperts    int      `json:"top_k_experts,omitempty"`
	// Branch: the run forced one token in place of the sampler's choice.
	Branch *Branch `json:"branch,omitempty"`
}

// Branch names the token forced at one step of a run: written token At
// (0-based) is Token whatever the sampler chose; the run goes on from it.
type Branch struct {
	At    int `json:"at"`
	Token int `json:"token"`
}

// Message is one turn of a chat.
type Message struct {
	Role    string `json:"role"` // "system", "user", "assistant"
	Content string `json:"content"`
}

// Run is one whole generation.
type Run struct {
	Model      ModelInfo   `json:"model"`
	Prompt     string      `json:"prompt"`             // the text encoded (a chat: the rendered template)
	Messages   []Message   `json:"messages,omitempty"` // a chat's turns before this reply
	Think      string      `json:"think,omitempty"`    // a chat's enable_thinking: "on", "off", or "" (template default)
	Settings   Settings    `json:"settings"`
	Tokens     []Token     `json:"tokens"` // prompt then generated
	Steps      []Step      `json:"steps"`
	Attention  []Attention `json:"attention,omitempty"`
	MLP        []MLP       `json:"mlp,omitempty"`
	DeltaNet   []DeltaNet  `json:"deltanet,omitempty"` // Gated DeltaNet layers (hybrid models)
	Timing     Timing      `json:"timing"`
	StopReason string      `json:"stop_reason"` // "eos", "max_tokens", "cancelled", "context"
	// Origin names what made the run when it was not a generation of the
	// window's own: an experiment's point ("q8_0 (quantisation experiment)").
	Origin string `json:"origin,omitempty"`
}

// ModelInfo describes the loaded model for the Model panel.
type ModelInfo struct {
	Name              string `json:"name"` // folder name
	Path              string `json:"path"`
	Architecture      string `json:"architecture"`
	ModelType         string `json:"model_type"`
	Layers            int    `json:"layers"`
	Heads             int    `json:"heads"`
	KVHeads           int    `json:"kv_heads"`
	HeadDim           int    `json:"head_dim"`
	Hidden            int    `json:"hidden"`
	Intermediate      int    `json:"intermediate"`
	Vocab             int    `json:"vocab"`
	MaxPositions      int    `json:"max_positions"`
	TiedEmbeddings    bool   `json:"tied_embeddings"`
	DType             string `json:"dtype"`
	FileBytes         int64  `json:"file_bytes"`
	ParamsEmbedding   int64  `json:"params_embedding"`
	ParamsAttention   int64  `json:"params_attention"`
	ParamsMLP         int64  `json:"params_mlp"`
	ParamsNorm        int64  `json:"params_norm"`
	ParamsOutput      int64  `json:"params_output"`          // 0 when tied (the embedding is read instead)
	WeightBytesPerTok int64  `json:"weight_bytes_per_token"` // bytes a decode step reads
	OutputBytesPerTok int64  `json:"output_bytes_per_token"` // of which the output head
	KVBytesPerToken   int64  `json:"kv_bytes_per_token"`

	// Hybrid models (Qwen3.5): the kind of every layer ("full_attention" or
	// "linear_attention"; empty when all layers are attention), the Gated
	// DeltaNet parameters, the fixed recurrent + conv state per sequence
	// (it does not grow with the context), and what the checkpoint holds
	// that the engine does not run.
	LayerTypes     []string `json:"layer_types,omitempty"`
	ParamsDeltaNet int64    `json:"params_deltanet,omitempty"`
	DeltaNetHeads  int      `json:"deltanet_heads,omitempty"`     // n_v value heads (n_k key heads share them)
	DeltaNetKeyDim int      `json:"deltanet_key_dim,omitempty"`   // d_k: the state of a head is d_k × d_v
	DeltaNetValDim int      `json:"deltanet_value_dim,omitempty"` // d_v
	StateBytes     int64    `json:"state_bytes,omitempty"`
	NotUsed        []string `json:"not_used,omitempty"`

	// Mixture-of-experts models: experts per MoE layer, how many each
	// token runs, and the MLP parameters one token reads (router, its k
	// experts, the shared expert; dense layers whole) against ParamsMLP,
	// which holds all experts.
	Experts         int   `json:"experts,omitempty"`
	ExpertsPerToken int   `json:"experts_per_token,omitempty"`
	ParamsMLPActive int64 `json:"params_mlp_active,omitempty"`
	// MoELayers is how many layers run the MoE block; ExpertBytes is
	// what one of their experts weighs in the file (gate, up and down), so
	// a token's k experts read k·ExpertBytes per MoE layer.
	MoELayers   int   `json:"moe_layers,omitempty"`
	ExpertBytes int64 `json:"expert_bytes,omitempty"`
}

// HasAttention reports whether layer l has an attention map (every layer
// of a model without LayerTypes).
func (mi *ModelInfo) HasAttention(l int) bool {
	return l >= len(mi.LayerTypes) || mi.LayerTypes[l] != "linear_attention"
}
