package engine

// A GGUF file's hyper-parameters (docs/spec/formats.md B.2): the {arch}.*
// keys read into the same Config a config.json gives.

import (
	"fmt"
	"strings"

	"loupe/engine/gguf"
	"loupe/engine/safetensors"
)

// ggufTrunkLayers is the number of decoder layers the forward pass runs:
// block_count less {arch}.nextn_predict_layers. llama.cpp's converter
// appends Qwen3.5's multi-token-prediction (MTP) block after the trunk,
// counted in block_count, as blk.<n_layer>.* (a full-attention layer and
// its nextn.* tensors); a next-token model does not run it, as the
// safetensors loader does not run mtp.*. Without the key every block is
// trunk (a layer beyond block_count is then refused by checkAllUsed).
func ggufTrunkLayers(f *gguf.File) (int, error) {
	arch, _, err := f.String("general.architecture")
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrBadFile, err)
	}
	r := ggufReader{f: f, prefix: arch + "."}
	blocks := r.int("block_count", 1, 512, 1<<10)
	nextn := r.int("nextn_predict_layers", 0, 16, 0)
	switch {
	case r.err != nil:
		return 0, r.err
	case nextn == 0:
		return 1 << 10, nil // past any block index blkName accepts
	case nextn >= blocks:
		return 0, fmt.Errorf("%w: %s: %snextn_predict_layers %d leaves no layer of block_count %d", ErrBadFile, f.Path, r.prefix, nextn, blocks)
	}
	return blocks - nextn, nil
}

// ggufMinContext is llama.cpp's default context (common_params.n_ctx).
const ggufMinContext = 4096

// ggufConfig reads the hyper-parameters of docs/spec/formats.md B.2 with the
// ranges of B.8 step 9.
func ggufConfig(f *gguf.File, set *ggufSet) (Config, error) {
	arch, ok, err := f.String("general.architecture")
	if err != nil {
		return Config{}, fmt.Errorf("%w: %w", ErrBadFile, err)
	}
	if !ok {
		return Config{}, fmt.Errorf("%w: %s: no general.architecture", ErrBadFile, f.Path)
	}
	name, ok := ggufArchs[arch]
	if !ok {
		return Config{}, fmt.Errorf("%w: %s: GGUF architecture %q (this engine runs %s)", ErrUnsupported, f.Path, arch, knownGGUFArchs())
	}
	c := Config{Architecture: name, ModelType: arch, DType: "gguf"}
	r := ggufReader{f: f, prefix: arch + "."}
	c.HiddenSize = r.int("embedding_length", 1, 65536, -1)
	c.NumHiddenLayers = r.int("block_count", 1, 512, -1) - r.int("nextn_predict_layers", 0, 16, 0) // ggufTrunkLayers
	c.IntermediateSize = r.int("feed_forward_length", 1, 1<<20, 0)                                 // absent in qwen35moe: its rules set it
	c.NumAttentionHeads = r.int("attention.head_count", 1, 1024, -1)
	c.NumKeyValueHeads = r.int("attention.head_count_kv", 1, 1024, int64(c.NumAttentionHeads))
	// context_length is the trained context; like llama.cpp, whose default
	// context is 4096 whatever the file says, we let a generation run that
	// far (llama2.c models converted by llama.cpp's tool say 128).
	c.MaxPositionEmbeddings = max(r.int("context_length", 1, maxDim, -1), ggufMinContext)
	c.RMSNormEps = r.float("attention.layer_norm_rms_epsilon", -1)
	c.RopeTheta = r.float("rope.freq_base", 10000)
	if r.err != nil {
		return Config{}, r.err
	}
	c.HeadDim = c.HiddenSize / c.NumAttentionHeads
	c.HeadDim = r.int("attention.key_length", 2, 1024, int64(c.HeadDim))
	vd := r.int("attention.value_length", 2, 1024, int64(c.HeadDim))
	rd := r.int("rope.dimension_count", 2, 1024, int64(c.HeadDim))
	scaling, _, err := f.String(arch + ".rope.scaling.type")
	switch {
	case r.err != nil:
		return Config{}, r.err
	case err != nil:
		return Config{}, fmt.Errorf("%w: %w", ErrBadFile, err)
	case scaling != "" && scaling != "none":
		return Config{}, fmt.Errorf("%w: %s: %s.rope.scaling.type %q (only none)", ErrUnsupported, f.Path, arch, scaling)
	case vd != c.HeadDim:
		return Config{}, fmt.Errorf("%w: %s: value_length %d differs from key_length %d", ErrUnsupported, f.Path, vd, c.HeadDim)
	case rd != c.HeadDim:
		if _, ok := architectures[name].(ggufPartialRope); !ok {
			return Config{}, fmt.Errorf("%w: %s: rope.dimension_count %d differs from key_length %d", ErrUnsupported, f.Path, rd, c.HeadDim)
		}
		c.RotaryDim = rd
	}
	emb, ok := f.Tensor("token_embd.weight")
	if !ok || len(emb.Dims) != 2 {
		return Config{}, fmt.Errorf("%w: %s: no 2-D token_embd.weight", ErrBadFile, f.Path)
	}
	c.VocabSize = emb.Rows()
	_, untied := f.Tensor("output.weight")
	c.TieWordEmbeddings = !untied
	if err := ggufRopeFreqs(f, &c); err != nil {
		return Config{}, err
	}
	if rules, ok := architectures[name].(ggufRules); ok {
		if err := rules.ggufConfig(&r, &c); err == nil && r.err != nil {
			return Config{}, r.err
		} else if err != nil {
			return Config{}, err
		}
	}
	if err := c.validate(); err != nil {
		return Config{}, fmt.Errorf("%s: %w", f.Path, err)
	}
	return c, nil
}

// ggufRopeFreqs reads rope_freqs.weight, the per-frequency divisors that
// convert_hf_to_gguf.py writes for Llama 3.1+ rope scaling.
func ggufRopeFreqs(f *gguf.File, c *Config) error {
	t, ok := f.Tensor("rope_freqs.weight")
	if !ok {
		return nil
	}
	if t.Type != gguf.F32 || len(t.Dims) != 1 || int(t.Dims[0]) != c.HeadDim/2 {
		return fmt.Errorf("%w: %s: rope_freqs.weight is %s %v, want F32 [%d]", ErrBadFile, f.Path, t.Type, t.Dims, c.HeadDim/2)
	}
	st := safetensors.Tensor{Name: t.Name, DType: "F32", Shape: []int{c.HeadDim / 2}, Data: t.Data, File: f.Path}
	v, err := st.F32()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadFile, err)
	}
	for i, x := range v {
		if !(x > 0) || x > 1e6 {
			return fmt.Errorf("%w: %s: rope_freqs.weight[%d] = %g", ErrBadFile, f.Path, i, x)
		}
	}
	c.RopeFreqFactors = append([]float32(nil), v...)
	return nil
}

// ggufReader reads {arch}.* keys, keeping the first error.
type ggufReader struct {
	f      *gguf.File
	prefix string
	err    error
}

// int reads prefix+key in [lo, hi]; def < 0 makes the key required.
func (r *ggufReader) int(key string, lo, hi, def int64) int {
	if r.err != nil {
		return 0
	}
	n, ok, err := r.f.Int(r.prefix+key, lo, hi)
	switch {
	case err != nil:
		r.err = fmt.Errorf("%w: %w", ErrBadFile, err)
	case !ok && def < 0:
		r.err = fmt.Errorf("%w: %s: key %s%s is missing", ErrBadFile, r.f.Path, r.prefix, key)
	case !ok:
		return int(def)
	}
	return int(n)
}

func (r *ggufReader) float(key string, def float64) float64 {
	if r.err != nil {
		return 0
	}
	x, ok, err := r.f.Float(r.prefix + key)
	switch {
	case err != nil:
		r.err = fmt.Errorf("%w: %w", ErrBadFile, err)
	case !ok && def < 0:
		r.err = fmt.Errorf("%w: %s: key %s%s is missing", ErrBadFile, r.f.Path, r.prefix, key)
	case !ok:
		return def
	}
	return x
}

// ggufName is the name of a GGUF model: its Hub repo id when it lies in a
// Hugging Face cache, else the file's general.name, else the file name.
func ggufName(f *gguf.File) string {
	name := NameFromPath(f.Path)
	if strings.Contains(name, "/") {
		return name
	}
	if g, ok, err := f.String("general.name"); err == nil && ok && strings.TrimSpace(g) != "" {
		return strings.TrimSpace(g)
	}
	return name
}
