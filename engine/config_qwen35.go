package engine

// config.json of Qwen3.5 (docs/spec/qwen35.md §1–§2): the vision-language checkpoint
// Qwen3_5ForConditionalGeneration (model_type "qwen3_5") keeps the decoder's
// settings in a nested text_config; a text-only export Qwen3_5ForCausalLM
// (model_type "qwen3_5_text") has them at the top level.

import (
	"encoding/json"
	"fmt"

	"loupe/engine/deltanet"
)

// Layer kinds of a hybrid model, spelled as in layer_types.
const (
	LinearAttention = "linear_attention" // Gated DeltaNet
	FullAttention   = "full_attention"   // gated softmax attention with a KV cache
)

// Qwen35Config is what Qwen3.5 adds to Config.
type Qwen35Config struct {
	LayerTypes          []string      // [L] LinearAttention or FullAttention
	Linear              deltanet.Dims // linear_num_key_heads, …, linear_conv_kernel_dim
	PartialRotaryFactor float64       // share of head_dim that RoPE rotates (0.25); Config.RotaryDim = int(d · it)
}

// FullAttentionLayers lists the layers that have a KV cache.
func (q *Qwen35Config) FullAttentionLayers() []int {
	var out []int
	for i, t := range q.LayerTypes {
		if t == FullAttention {
			out = append(out, i)
		}
	}
	return out
}

// rawQwen35 is the top level of a Qwen3.5 config.json.
type rawQwen35 struct {
	Architectures     []string        `json:"architectures"`
	ModelType         string          `json:"model_type"`
	TextConfig        json.RawMessage `json:"text_config"`
	TieWordEmbeddings *bool           `json:"tie_word_embeddings"`
	EOSTokenID        json.RawMessage `json:"eos_token_id"`
}

// rawQwen35Text is text_config (or the whole file of a text-only export).
type rawQwen35Text struct {
	ModelType             string          `json:"model_type"`
	HiddenSize            *int            `json:"hidden_size"`
	IntermediateSize      *int            `json:"intermediate_size"`
	NumHiddenLayers       *int            `json:"num_hidden_layers"`
	NumAttentionHeads     *int            `json:"num_attention_heads"`
	NumKeyValueHeads      *int            `json:"num_key_value_heads"`
	HeadDim               *int            `json:"head_dim"`
	HiddenAct             *string         `json:"hidden_act"`
	AttentionBias         *bool           `json:"attention_bias"`
	AttnOutputGate        *bool           `json:"attn_output_gate"`
	RMSNormEps            *float64        `json:"rms_norm_eps"`
	RopeTheta             *float64        `json:"rope_theta"`
	PartialRotaryFactor   *float64        `json:"partial_rotary_factor"`
	RopeScaling           json.RawMessage `json:"rope_scaling"`
	RopeParameters        json.RawMessage `json:"rope_parameters"`
	LayerTypes            []string        `json:"layer_types"`
	FullAttentionInterval *int            `json:"full_attention_interval"`
	LinearNumKeyHeads     *int            `json:"linear_num_key_heads"`
	LinearNumValueHeads   *int            `json:"linear_num_value_heads"`
	LinearKeyHeadDim      *int            `json:"linear_key_head_dim"`
	LinearValueHeadDim    *int            `json:"linear_value_head_dim"`
	LinearConvKernelDim   *int            `json:"linear_conv_kernel_dim"`
	MaxPositionEmbeddings *int            `json:"max_position_embeddings"`
	TieWordEmbeddings     *bool           `json:"tie_word_embeddings"`
	VocabSize             *int            `json:"vocab_size"`
	EOSTokenID            json.RawMessage `json:"eos_token_id"`
	TorchDType            string          `json:"torch_dtype"`
	DType                 string          `json:"dtype"`
}

// parseConfig reads a Qwen3.5 config.json (configParser) and refuses, by
// name, any setting the engine does not implement.
func (qwen35) parseConfig(data []byte) (Config, error) {
	var top rawQwen35
	if err := json.Unmarshal(data, &top); err != nil {
		return Config{}, fmt.Errorf("%w: %v", ErrBadFile, err)
	}
	c, q, err := top.resolve(data)
	if err != nil {
		return Config{}, err
	}
	c.Qwen35 = &q
	return c, nil
}

func (top *rawQwen35) resolve(data []byte) (Config, Qwen35Config, error) {
	if err := top.checkArchitecture(); err != nil {
		return Config{}, Qwen35Config{}, err
	}
	text := data // a text-only export has no text_config
	if len(top.TextConfig) > 0 && string(top.TextConfig) != "null" {
		text = top.TextConfig
	}
	var r rawQwen35Text
	if err := json.Unmarshal(text, &r); err != nil {
		return Config{}, Qwen35Config{}, fmt.Errorf("%w: text_config: %v", ErrBadFile, err)
	}
	c := r.base()
	c.Architecture = modelTypes[top.ModelType] // registered: checked above
	if len(top.Architectures) > 0 {
		c.Architecture = top.Architectures[0]
	}
	c.ModelType = top.ModelType
	// text_config's tie_word_embeddings is authoritative (docs/spec/qwen35.md §1); the
	// top level's is the wrapper class's default (false) when text_config
	// says nothing.
	if r.TieWordEmbeddings != nil {
		c.TieWordEmbeddings = *r.TieWordEmbeddings
	} else if top.TieWordEmbeddings != nil {
		c.TieWordEmbeddings = *top.TieWordEmbeddings
	}
	if len(r.EOSTokenID) == 0 {
		r.EOSTokenID = top.EOSTokenID
	}
	var q Qwen35Config
	for _, check := range []func(*Config, *Qwen35Config) error{r.checkAttention, r.resolveRope, validated, r.resolveLayers, r.resolveLinear, r.resolveEOS} {
		if err := check(&c, &q); err != nil {
			return Config{}, Qwen35Config{}, err
		}
	}
	return c, q, nil
}

// validated runs validate before the layers are sized by the config.
func validated(c *Config, _ *Qwen35Config) error { return c.validate() }

// checkArchitecture accepts architectures registered for the same forward
// pass as model_type (qwen3_5 and qwen3_5_text both name qwen35).
func (top *rawQwen35) checkArchitecture() error {
	arch := architectures[modelTypes[top.ModelType]]
	for _, a := range top.Architectures {
		if other, ok := architectures[a]; !ok || other != arch {
			return fmt.Errorf("%w: architectures %q with model_type %q (this engine runs %s)", ErrUnsupported, a, top.ModelType, knownArchitectures())
		}
	}
	return nil
}

// base fills the fields shared with Qwen2 with Qwen3_5TextConfig's
// defaults (docs/spec/qwen35.md §1: they do not match the 2B model, which sets all).
func (r *rawQwen35Text) base() Config {
	c := Config{
		HiddenSize:            intOr(r.HiddenSize, 4096),
		IntermediateSize:      intOr(r.IntermediateSize, 12288),
		NumHiddenLayers:       intOr(r.NumHiddenLayers, 32),
		NumAttentionHeads:     intOr(r.NumAttentionHeads, 16),
		NumKeyValueHeads:      intOr(r.NumKeyValueHeads, 4),
		HeadDim:               intOr(r.HeadDim, 256),
		RMSNormEps:            1e-6,
		MaxPositionEmbeddings: intOr(r.MaxPositionEmbeddings, 32768),
		VocabSize:             intOr(r.VocabSize, 248320),
		DType:                 r.TorchDType,
	}
	if c.DType == "" {
		c.DType = r.DType
	}
	if r.RMSNormEps != nil {
		c.RMSNormEps = *r.RMSNormEps
	}
	return c
}

// checkAttention refuses the variants of the gated attention that the
// forward pass does not have.
func (r *rawQwen35Text) checkAttention(*Config, *Qwen35Config) error {
	switch {
	case r.HiddenAct != nil && *r.HiddenAct != "silu":
		return fmt.Errorf("%w: hidden_act %q (only \"silu\")", ErrUnsupported, *r.HiddenAct)
	case r.AttentionBias != nil && *r.AttentionBias:
		return fmt.Errorf("%w: attention_bias true (Qwen3.5's attention has no biases)", ErrUnsupported)
	case r.AttnOutputGate != nil && !*r.AttnOutputGate:
		return fmt.Errorf("%w: attn_output_gate false (only the gated attention of Qwen3.5)", ErrUnsupported)
	}
	return nil
}

// resolveRope reads rope_theta and partial_rotary_factor from the top of
// text_config or from rope_parameters / rope_scaling (docs/spec/qwen35.md §4, §10).
// MRoPE ("mrope_section") is 1-D RoPE for text, so it is accepted; any
// other scaling is refused.
func (r *rawQwen35Text) resolveRope(c *Config, q *Qwen35Config) error {
	c.RopeTheta, q.PartialRotaryFactor = 10_000_000, 0.25
	if r.RopeTheta != nil {
		c.RopeTheta = *r.RopeTheta
	}
	if r.PartialRotaryFactor != nil {
		q.PartialRotaryFactor = *r.PartialRotaryFactor
	}
	fields, err := ropeFields(r.RopeScaling, r.RopeParameters)
	if err != nil {
		return err
	}
	for _, f := range fields {
		if f.typ != "" && f.typ != "default" && f.typ != "mrope" {
			return fmt.Errorf("%w: %s.rope_type %q (only \"default\")", ErrUnsupported, f.name, f.typ)
		}
		if f.p.RopeTheta != nil {
			c.RopeTheta = *f.p.RopeTheta
		}
		if f.p.PartialRotaryFactor != nil {
			q.PartialRotaryFactor = *f.p.PartialRotaryFactor
		}
	}
	c.RotaryDim = int(float64(c.HeadDim) * q.PartialRotaryFactor)
	if c.RotaryDim <= 0 || c.RotaryDim%2 != 0 || c.RotaryDim > c.HeadDim {
		return fmt.Errorf("%w: partial_rotary_factor %g gives a rotary width of %d of head_dim %d (want an even number ≥ 2)",
			ErrUnsupported, q.PartialRotaryFactor, c.RotaryDim, c.HeadDim)
	}
	return nil
}

// resolveLayers: layer_types when present, else every
// full_attention_interval-th layer is full attention (docs/spec/qwen35.md §2).
func (r *rawQwen35Text) resolveLayers(c *Config, q *Qwen35Config) error {
	L := c.NumHiddenLayers
	if r.LayerTypes != nil {
		if len(r.LayerTypes) != L {
			return fmt.Errorf("%w: layer_types has %d entries, num_hidden_layers is %d", ErrBadFile, len(r.LayerTypes), L)
		}
		for i, t := range r.LayerTypes {
			if t != LinearAttention && t != FullAttention {
				return fmt.Errorf("%w: layer_types[%d] = %q (want %q or %q)", ErrUnsupported, i, t, LinearAttention, FullAttention)
			}
		}
		q.LayerTypes = append([]string(nil), r.LayerTypes...)
		return nil
	}
	n := intOr(r.FullAttentionInterval, 4)
	if n <= 0 {
		return fmt.Errorf("%w: full_attention_interval = %d (want ≥ 1)", ErrBadFile, n)
	}
	q.LayerTypes = make([]string, L)
	for i := range L {
		q.LayerTypes[i] = LinearAttention
		if (i+1)%n == 0 {
			q.LayerTypes[i] = FullAttention
		}
	}
	return nil
}

func (r *rawQwen35Text) resolveLinear(_ *Config, q *Qwen35Config) error {
	d := deltanet.Dims{
		NK: intOr(r.LinearNumKeyHeads, 16), NV: intOr(r.LinearNumValueHeads, 32),
		DK: intOr(r.LinearKeyHeadDim, 128), DV: intOr(r.LinearValueHeadDim, 128),
		Conv: intOr(r.LinearConvKernelDim, 4),
	}
	for _, s := range []struct {
		name string
		v    int
	}{{"linear_num_key_heads", d.NK}, {"linear_num_value_heads", d.NV}, {"linear_key_head_dim", d.DK},
		{"linear_value_head_dim", d.DV}} {
		if s.v <= 0 || s.v > 1<<12 {
			return fmt.Errorf("%w: %s = %d (want 1…4096)", ErrBadFile, s.name, s.v)
		}
	}
	if d.Conv < 1 || d.Conv > 64 {
		return fmt.Errorf("%w: linear_conv_kernel_dim = %d (want 1…64)", ErrBadFile, d.Conv)
	}
	if d.NV%d.NK != 0 {
		return fmt.Errorf("%w: linear_num_value_heads %d is not a multiple of linear_num_key_heads %d", ErrBadFile, d.NV, d.NK)
	}
	q.Linear = d
	return nil
}

func (r *rawQwen35Text) resolveEOS(c *Config, _ *Qwen35Config) error {
	ids, err := parseIDs(r.EOSTokenID)
	if err != nil {
		return fmt.Errorf("%w: eos_token_id: %v", ErrBadFile, err)
	}
	c.EOSTokenIDs = ids
	return nil
}
