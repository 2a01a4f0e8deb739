package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Config is the part of a Hugging Face config.json that the Qwen2 forward
// pass depends on (docs/spec/qwen2.md §1). Field names mirror the JSON keys.
type Config struct {
	Architecture          string  // architectures[0] (or model_type's): "Qwen2ForCausalLM"
	ModelType             string  // "qwen2"
	HiddenSize            int     // h, width of the residual stream
	IntermediateSize      int     // I, width of the SwiGLU hidden layer
	NumHiddenLayers       int     // L
	NumAttentionHeads     int     // H, query heads
	NumKeyValueHeads      int     // KV, key/value heads (H % KV == 0)
	HeadDim               int     // d: head_dim, or h/H when absent
	RMSNormEps            float64 // epsilon inside every RMSNorm
	RopeTheta             float64 // RoPE base θ
	MaxPositionEmbeddings int     // the longest context we allow
	TieWordEmbeddings     bool    // output head reuses model.embed_tokens.weight
	VocabSize             int     // V, rows of the embedding and the output head
	EOSTokenIDs           []int   // config.json eos_token_id (generation_config.json wins)
	DType                 string  // torch_dtype / dtype, informational
	RotaryDim             int     // dims of each head that RoPE rotates (0: all of head_dim)

	Qwen35 *Qwen35Config // Qwen3.5's hybrid layers (config_qwen35.go); nil for other architectures
	MoE    *MoEConfig    // a mixture-of-experts FFN (moe.go); nil for dense models

	// RoPE frequency changes (rope.go ropeInvFreq), at most one set:
	RopeLlama3      *Llama3Rope // rope_type "llama3" of Llama 3.1/3.2 (docs/spec/llama.md §2)
	RopeFreqFactors []float32   // [d/2] GGUF rope_freqs.weight: inv_freq[i] / factor[i]
}

// rotaryDim is the width RoPE rotates in each head.
func (c *Config) rotaryDim() int {
	if c.RotaryDim > 0 {
		return c.RotaryDim
	}
	return c.HeadDim
}

// attentionLayers lists the layers with softmax attention, the ones that
// keep a KV cache: all of them, except in a hybrid model.
func (c *Config) attentionLayers() []int {
	if c.Qwen35 != nil {
		return c.Qwen35.FullAttentionLayers()
	}
	out := make([]int, c.NumHiddenLayers)
	for i := range out {
		out[i] = i
	}
	return out
}

// Llama3Rope holds the parameters of rope_type "llama3" (docs/spec/llama.md §2).
type Llama3Rope struct {
	Factor, LowFreqFactor, HighFreqFactor float64
	OriginalMaxPositions                  float64
}

// maxDim bounds every size in a config so that products of sizes cannot
// overflow and a hostile file cannot ask for absurd buffers.
const maxDim = 1 << 24

// rawConfig is config.json as written by transformers 4.x and 5.x. Pointers
// tell an absent field from a zero one.
type rawConfig struct {
	Architectures         []string        `json:"architectures"`
	ModelType             string          `json:"model_type"`
	HiddenSize            *int            `json:"hidden_size"`
	IntermediateSize      *int            `json:"intermediate_size"`
	NumHiddenLayers       *int            `json:"num_hidden_layers"`
	NumAttentionHeads     *int            `json:"num_attention_heads"`
	NumKeyValueHeads      *int            `json:"num_key_value_heads"`
	HeadDim               *int            `json:"head_dim"`
	AttentionBias         *bool           `json:"attention_bias"`
	HiddenAct             *string         `json:"hidden_act"`
	MLPBias               *bool           `json:"mlp_bias"`
	RMSNormEps            *float64        `json:"rms_norm_eps"`
	RopeTheta             *float64        `json:"rope_theta"`
	RopeScaling           json.RawMessage `json:"rope_scaling"`
	RopeParameters        json.RawMessage `json:"rope_parameters"`
	MaxPositionEmbeddings *int            `json:"max_position_embeddings"`
	UseSlidingWindow      *bool           `json:"use_sliding_window"`
	SlidingWindow         *int            `json:"sliding_window"`
	MaxWindowLayers       *int            `json:"max_window_layers"`
	LayerTypes            []string        `json:"layer_types"`
	TieWordEmbeddings     *bool           `json:"tie_word_embeddings"`
	VocabSize             *int            `json:"vocab_size"`
	EOSTokenID            json.RawMessage `json:"eos_token_id"`
	TorchDType            string          `json:"torch_dtype"`
	DType                 string          `json:"dtype"`

	data []byte // the whole file, for keys an architecture reads itself (configRules)
}

// ropeParams is rope_scaling (transformers 4) or rope_parameters (5).
type ropeParams struct {
	RopeType  string   `json:"rope_type"`
	Type      string   `json:"type"` // older spelling of rope_type
	RopeTheta *float64 `json:"rope_theta"`
	// rope_type "llama3"
	Factor         *float64 `json:"factor"`
	LowFreqFactor  *float64 `json:"low_freq_factor"`
	HighFreqFactor *float64 `json:"high_freq_factor"`
	OriginalMax    *float64 `json:"original_max_position_embeddings"`
	// Qwen3.5
	PartialRotaryFactor *float64 `json:"partial_rotary_factor"`
}

// ropeField is one of rope_scaling / rope_parameters, parsed, with its
// type (rope_type, or the older "type"; "" when absent).
type ropeField struct {
	name, typ string
	p         ropeParams
}

// ropeFields parses the rope_scaling and rope_parameters present (either may
// be absent or null), in that order, so that rope_parameters (transformers 5)
// wins where both set a value.
func ropeFields(scaling, params json.RawMessage) ([]ropeField, error) {
	var out []ropeField
	for _, f := range []struct {
		name string
		raw  json.RawMessage
	}{{"rope_scaling", scaling}, {"rope_parameters", params}} {
		if len(f.raw) == 0 || string(f.raw) == "null" {
			continue
		}
		var p ropeParams
		if err := json.Unmarshal(f.raw, &p); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrBadFile, f.name, err)
		}
		typ := p.RopeType
		if typ == "" {
			typ = p.Type
		}
		out = append(out, ropeField{f.name, typ, p})
	}
	return out, nil
}

// ParseConfig reads config.json bytes and refuses any setting the engine
// does not implement, naming the setting. The architecture named by
// model_type reads the file: the shared Hugging Face layout (parseHF) with
// its own defaults and refusals (configRules), or a layout of its own
// (configParser: Qwen3.5's nested text_config). Every result passes the
// one validation, validate, that GGUF metadata passes too.
func ParseConfig(data []byte) (Config, error) {
	var head struct {
		ModelType string `json:"model_type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return Config{}, fmt.Errorf("config.json: %w: %v", ErrBadFile, err)
	}
	var c Config
	var err error
	if p, ok := architectures[modelTypes[head.ModelType]].(configParser); ok {
		c, err = p.parseConfig(data)
	} else {
		c, err = parseHF(data)
	}
	if err == nil {
		err = c.validate()
	}
	if err != nil {
		return Config{}, fmt.Errorf("config.json: %w", err)
	}
	return c, nil
}

// parseHF reads the config.json layout of transformers' PretrainedConfig
// subclasses with Qwen2Config's defaults, then the architecture's rules.
func parseHF(data []byte) (Config, error) {
	r := rawConfig{data: data}
	if err := json.Unmarshal(data, &r); err != nil {
		return Config{}, fmt.Errorf("%w: %v", ErrBadFile, err)
	}
	return r.resolve()
}

// resolve applies Qwen2Config's defaults, the architecture's rules
// (configRules) and the shared checks.
func (r *rawConfig) resolve() (Config, error) {
	if err := r.checkArchitecture(); err != nil {
		return Config{}, err
	}
	c := Config{
		ModelType:             r.ModelType,
		HiddenSize:            intOr(r.HiddenSize, 4096),
		IntermediateSize:      intOr(r.IntermediateSize, 22016),
		NumHiddenLayers:       intOr(r.NumHiddenLayers, 32),
		NumAttentionHeads:     intOr(r.NumAttentionHeads, 32),
		RMSNormEps:            1e-6,
		MaxPositionEmbeddings: intOr(r.MaxPositionEmbeddings, 32768),
		VocabSize:             intOr(r.VocabSize, 151936),
		DType:                 r.TorchDType,
	}
	c.Architecture = modelTypes[r.ModelType] // registered: checked above
	if len(r.Architectures) > 0 {
		c.Architecture = r.Architectures[0]
	}
	if c.DType == "" {
		c.DType = r.DType
	}
	if r.RMSNormEps != nil {
		c.RMSNormEps = *r.RMSNormEps
	}
	if r.TieWordEmbeddings != nil {
		c.TieWordEmbeddings = *r.TieWordEmbeddings
	}
	c.NumKeyValueHeads = intOr(r.NumKeyValueHeads, c.NumAttentionHeads)
	checks := []func(*Config) error{r.checkSizes}
	if rules, ok := architectures[c.Architecture].(configRules); ok {
		checks = append(checks, func(c *Config) error { return rules.configRules(r, c) })
	}
	checks = append(checks, r.resolveHeadDim, r.checkActivation, r.resolveRope, r.checkSlidingWindow, r.resolveEOS, r.checkMLPBias)
	for _, check := range checks {
		if err := check(&c); err != nil {
			return Config{}, err
		}
	}
	return c, nil
}

func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

// checkArchitecture accepts a registered architecture (arch.go) whose
// model_type matches; architectures may be absent when model_type names one.
func (r *rawConfig) checkArchitecture() error {
	name, ok := modelTypes[r.ModelType]
	if !ok {
		return fmt.Errorf("%w: model_type %q (this engine runs %s)", ErrUnsupported, r.ModelType, knownModelTypes())
	}
	for _, a := range r.Architectures {
		if arch, ok := architectures[a]; !ok || arch != architectures[name] {
			return fmt.Errorf("%w: architectures %q with model_type %q (this engine runs %s)", ErrUnsupported, a, r.ModelType, knownArchitectures())
		}
	}
	return nil
}

// checkSizes checks the sizes resolveHeadDim divides by before validate
// sees them all.
func (r *rawConfig) checkSizes(c *Config) error {
	if c.NumAttentionHeads <= 0 || c.NumAttentionHeads > maxDim {
		return fmt.Errorf("%w: num_attention_heads = %d (want 1…%d)", ErrBadFile, c.NumAttentionHeads, maxDim)
	}
	return nil
}

// validate is the one check of a Config, whichever file it came from
// (config.json, Qwen3.5's text_config, GGUF metadata): every size in range,
// query heads in groups of key/value heads, an even head_dim whose products
// cannot overflow, a rotary width inside it, 0 < eps < 1 and θ > 1.
// Messages name config.json's keys.
func (c *Config) validate() error {
	sizes := []struct {
		name string
		v    int
	}{
		{"hidden_size", c.HiddenSize}, {"intermediate_size", c.IntermediateSize},
		{"num_hidden_layers", c.NumHiddenLayers}, {"num_attention_heads", c.NumAttentionHeads},
		{"num_key_value_heads", c.NumKeyValueHeads}, {"head_dim", c.HeadDim}, {"vocab_size", c.VocabSize},
		{"max_position_embeddings", c.MaxPositionEmbeddings},
	}
	for _, s := range sizes {
		if s.v <= 0 || s.v > maxDim {
			return fmt.Errorf("%w: %s = %d (want 1…%d)", ErrBadFile, s.name, s.v, maxDim)
		}
	}
	switch {
	case c.NumAttentionHeads%c.NumKeyValueHeads != 0:
		return fmt.Errorf("%w: num_attention_heads %d is not a multiple of num_key_value_heads %d",
			ErrBadFile, c.NumAttentionHeads, c.NumKeyValueHeads)
	case c.HeadDim%2 != 0 || c.HeadDim > maxDim/(2*c.NumAttentionHeads):
		return fmt.Errorf("%w: head_dim = %d (want a positive even number of at most %d)", ErrBadFile, c.HeadDim, maxDim/(2*c.NumAttentionHeads))
	case c.RotaryDim < 0 || c.RotaryDim%2 != 0 || c.RotaryDim > c.HeadDim:
		return fmt.Errorf("%w: a rotary width of %d in head_dim %d (want an even number ≤ head_dim)", ErrUnsupported, c.RotaryDim, c.HeadDim)
	case !(c.RMSNormEps > 0 && c.RMSNormEps < 1):
		return fmt.Errorf("%w: rms_norm_eps = %g (want 0 < eps < 1)", ErrBadFile, c.RMSNormEps)
	case !(c.RopeTheta > 1):
		return fmt.Errorf("%w: rope_theta = %g (want > 1)", ErrBadFile, c.RopeTheta)
	}
	if c.MoE != nil {
		return c.MoE.validate(c.NumHiddenLayers)
	}
	return nil
}

// resolveHeadDim: head_dim if present and non-zero, else the
// architecture's default (configRules: Qwen3's 128), else h/H (docs/spec/qwen2.md §1).
func (r *rawConfig) resolveHeadDim(c *Config) error {
	switch {
	case r.HeadDim != nil && *r.HeadDim != 0:
		c.HeadDim = *r.HeadDim
	case c.HeadDim != 0: // the architecture's default
	case c.HiddenSize%c.NumAttentionHeads != 0:
		return fmt.Errorf("%w: head_dim absent and hidden_size %d is not a multiple of num_attention_heads %d",
			ErrBadFile, c.HiddenSize, c.NumAttentionHeads)
	default:
		c.HeadDim = c.HiddenSize / c.NumAttentionHeads
	}
	return nil
}

func (r *rawConfig) checkActivation(c *Config) error {
	if r.HiddenAct != nil && *r.HiddenAct != "silu" {
		return fmt.Errorf("%w: hidden_act %q (only \"silu\")", ErrUnsupported, *r.HiddenAct)
	}
	return nil
}

// resolveRope accepts rope_scaling (transformers 4) and rope_parameters (5);
// rope_theta may sit at the top level or inside either. The default RoPE
// and rope_type "llama3" (its frequency scaling, rope.go) are implemented;
// any other type changes inv_freq in a way this engine does not.
func (r *rawConfig) resolveRope(c *Config) error {
	c.RopeTheta = 10000
	if r.RopeTheta != nil {
		c.RopeTheta = *r.RopeTheta
	}
	fields, err := ropeFields(r.RopeScaling, r.RopeParameters)
	if err != nil {
		return err
	}
	for _, f := range fields {
		if f.typ == "llama3" {
			l3, err := f.p.llama3(f.name, c.MaxPositionEmbeddings)
			if err != nil {
				return err
			}
			c.RopeLlama3 = l3
		} else if f.typ != "" && f.typ != "default" && f.typ != "none" {
			return fmt.Errorf("%w: %s.rope_type %q (only \"default\" and \"llama3\")", ErrUnsupported, f.name, f.typ)
		}
		if f.p.RopeTheta != nil {
			c.RopeTheta = *f.p.RopeTheta
		}
	}
	return nil
}

// llama3 checks rope_type "llama3"'s parameters; original_max_position_
// embeddings defaults to max_position_embeddings (standardize_rope_params).
func (p *ropeParams) llama3(field string, maxPos int) (*Llama3Rope, error) {
	if p.Factor == nil || p.LowFreqFactor == nil || p.HighFreqFactor == nil {
		return nil, fmt.Errorf("%w: %s: rope_type llama3 needs factor, low_freq_factor and high_freq_factor", ErrBadFile, field)
	}
	l := &Llama3Rope{Factor: *p.Factor, LowFreqFactor: *p.LowFreqFactor, HighFreqFactor: *p.HighFreqFactor, OriginalMaxPositions: float64(maxPos)}
	if p.OriginalMax != nil {
		l.OriginalMaxPositions = *p.OriginalMax
	}
	if !(l.Factor >= 1 && l.LowFreqFactor > 0 && l.HighFreqFactor > l.LowFreqFactor && l.OriginalMaxPositions >= 1) {
		return nil, fmt.Errorf("%w: %s: llama3 parameters factor %g, low %g, high %g, original_max_position_embeddings %g out of range",
			ErrBadFile, field, l.Factor, l.LowFreqFactor, l.HighFreqFactor, l.OriginalMaxPositions)
	}
	return l, nil
}

// checkMLPBias refuses mlp_bias, a switch for biases no supported
// checkpoint has (docs/spec/llama.md §1). attention_bias is each architecture's
// (configRules): Qwen2's q/k/v always carry biases, Llama and Qwen3 refuse them.
func (r *rawConfig) checkMLPBias(*Config) error {
	if r.MLPBias != nil && *r.MLPBias {
		return fmt.Errorf("%w: mlp_bias true (not implemented)", ErrUnsupported)
	}
	return nil
}

// refuseAttentionBias is the configRules of architectures whose attention
// has no biases: attention_bias true would ask for tensors they do not load.
func refuseAttentionBias(r *rawConfig, family string) error {
	if r.AttentionBias != nil && *r.AttentionBias {
		return fmt.Errorf("%w: attention_bias true (%s attention without biases only)", ErrUnsupported, family)
	}
	return nil
}

// checkSlidingWindow refuses sliding-window attention unless it cannot
// change anything: a window covering the whole context, or no layer at or
// above max_window_layers (docs/spec/qwen2.md §1).
func (r *rawConfig) checkSlidingWindow(c *Config) error {
	for i, t := range r.LayerTypes {
		if t != "full_attention" {
			return fmt.Errorf("%w: layer_types[%d] = %q (only \"full_attention\")", ErrUnsupported, i, t)
		}
	}
	if r.UseSlidingWindow == nil || !*r.UseSlidingWindow {
		return nil
	}
	if r.SlidingWindow != nil && *r.SlidingWindow >= c.MaxPositionEmbeddings {
		return nil
	}
	if r.MaxWindowLayers != nil && *r.MaxWindowLayers >= c.NumHiddenLayers {
		return nil
	}
	return fmt.Errorf("%w: use_sliding_window true (sliding-window attention is not implemented)", ErrUnsupported)
}

func (r *rawConfig) resolveEOS(c *Config) error {
	ids, err := parseIDs(r.EOSTokenID)
	if err != nil {
		return fmt.Errorf("%w: eos_token_id: %v", ErrBadFile, err)
	}
	c.EOSTokenIDs = ids
	return nil
}

// parseIDs reads a token id given as an int, a list of ints, or null.
func parseIDs(raw json.RawMessage) ([]int, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one int
	if err := json.Unmarshal(raw, &one); err == nil {
		return []int{one}, nil
	}
	var list []int
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("want an int or a list of ints, got %s", raw)
	}
	return list, nil
}

// readEOS returns the stop ids: generation_config.json's eos_token_id when
// the file exists and sets it, else config.json's (docs/spec/sampling.md §6).
func readEOS(dir string, cfg Config) ([]int, error) {
	path := filepath.Join(dir, "generation_config.json")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg.EOSTokenIDs, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var g struct {
		EOSTokenID json.RawMessage `json:"eos_token_id"`
	}
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrBadFile, err)
	}
	ids, err := parseIDs(g.EOSTokenID)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: eos_token_id: %v", path, ErrBadFile, err)
	}
	if ids == nil {
		return cfg.EOSTokenIDs, nil
	}
	return ids, nil
}
