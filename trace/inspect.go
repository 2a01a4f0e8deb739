package trace

// Inspection is what one position of a sequence looks like inside the
// model, recomputed on demand (engine.Model.Inspect): the embedding row of
// its token, its attention over every earlier position, the logit lens
// after every layer, the MLP activation of every layer, and the cached
// keys and values of one layer and KV head up to it. Layers, heads and KV
// heads are indices from 0, as in the tensor names.
type Inspection struct {
	Pos   int   `json:"pos"`
	Token Token `json:"token"`

	// Embedding is row Token.ID of model.embed_tokens.weight [hidden];
	// EmbeddingRows is the table's row count (the vocabulary) and Tied
	// says whether the same table is the output head.
	Embedding     []float32 `json:"embedding"`
	EmbeddingRows int       `json:"embedding_rows"`
	Tied          bool      `json:"tied"`

	Attention Attention   `json:"attention"`  // QueryPos = Pos: [L][H][Pos+1]
	Lens      []LensLayer `json:"logit_lens"` // one per layer, first layer first
	MLP       []MLP       `json:"mlp"`        // silu(gate)·up of every layer at Pos
	KV        KVRows      `json:"kv"`

	// Experts is the router's choice in each MoE layer at Pos (absent for
	// dense models).
	Experts []Routing `json:"experts,omitempty"`
}

// Routing is one MoE layer's router decision for one token: the chosen
// experts best first (probability descending, then id), the weights their
// outputs were multiplied by, and the softmax over all experts. Layers
// and experts are indices from 0.
type Routing struct {
	Layer   int       `json:"layer"`
	IDs     []int     `json:"ids"`
	Weights []float32 `json:"weights"`
	Probs   []float32 `json:"probs"`
}

// LensLayer is the logit lens after one layer: that layer's residual
// stream (after its MLP) through the final norm and the output head, as
// the most probable next tokens (softmax over the whole vocabulary).
type LensLayer struct {
	Layer int         `json:"layer"`
	Top   []Candidate `json:"top"`
}

// KVRows are the cached keys (after RoPE) and values of one layer and KV
// head for positions 0…len-1: Keys[pos][head_dim], Values[pos][head_dim].
type KVRows struct {
	Layer  int         `json:"layer"`
	KVHead int         `json:"kv_head"`
	Keys   [][]float32 `json:"keys"`
	Values [][]float32 `json:"values"`
	Note   string      `json:"note,omitempty"` // why Keys and Values are empty (a layer without attention)
}

// SamplerStages is what each stage of the sampler did at one step, for
// its best candidates after the penalties (engine/sample.Stages): the
// probability of each after every stage, in the sampler's order, 0 once a
// stage removed it.
type SamplerStages struct {
	Greedy     bool           `json:"greedy"`
	Candidates []Candidate    `json:"candidates"` // best first; P: the final probability (0: removed)
	Logits     []float64      `json:"logits"`     // after the penalties
	Stages     []SamplerStage `json:"stages"`
	Drawn      int            `json:"drawn"` // the token id chosen
	U          float64        `json:"u"`     // the seeded uniform draw (sampling)
}

// SamplerStage is the state after one stage.
type SamplerStage struct {
	Name string    `json:"name"` // penalties, temperature, top-k, top-p, min-p
	On   bool      `json:"on"`   // its setting changes something
	Kept int       `json:"kept"` // tokens of the vocabulary still possible
	P    []float64 `json:"p"`    // per candidate
}
