package engine

// Loading a GGUF file (docs/spec/formats.md part B): hyper-parameters from the
// {arch}.* keys, the vocabulary from tokenizer.ggml.*, tensors mapped back
// to their Hugging Face names so that every architecture file loads both
// formats with the same names and shapes.

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"loupe/engine/gguf"
	"loupe/engine/safetensors"
	"loupe/engine/tokenizer"
)

// loadGGUF opens a .gguf model file.
func loadGGUF(path string, opt LoadOptions) (*Model, error) {
	f, err := gguf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadFile, err)
	}
	m, err := modelFromGGUF(f, opt)
	if err != nil {
		f.Close()
		return nil, err
	}
	return m, nil
}

func modelFromGGUF(f *gguf.File, opt LoadOptions) (*Model, error) {
	set, err := newGGUFSet(f)
	if err != nil {
		return nil, err
	}
	cfg, err := ggufConfig(f, set)
	if err != nil {
		return nil, err
	}
	tok, eos, err := ggufTokenizer(f, cfg)
	if err != nil {
		return nil, err
	}
	cfg.EOSTokenIDs = eos
	w, err := loadWeights(set, cfg, opt.Progress)
	if err != nil {
		return nil, err
	}
	if err := set.checkAllUsed(); err != nil {
		return nil, err
	}
	_, w.metaQK = architectures[cfg.Architecture].(ggufMetaQK)
	m := newModel(cfg, w, opt.Threads)
	m.eos, m.tok, m.done = eos, tok, f.Close
	m.info = modelInfo(cfg, w, f.Path, filepath.Dir(f.Path), f.FileBytes())
	m.info.Name = ggufName(f)
	return m, nil
}

// ggufLayerNames maps the per-layer Hugging Face names to GGUF's
// (docs/spec/formats.md B.3).
var ggufLayerNames = map[string]string{
	"input_layernorm.weight":          "attn_norm.weight",
	"self_attn.q_proj.weight":         "attn_q.weight",
	"self_attn.q_proj.bias":           "attn_q.bias",
	"self_attn.k_proj.weight":         "attn_k.weight",
	"self_attn.k_proj.bias":           "attn_k.bias",
	"self_attn.v_proj.weight":         "attn_v.weight",
	"self_attn.v_proj.bias":           "attn_v.bias",
	"self_attn.o_proj.weight":         "attn_output.weight",
	"self_attn.q_norm.weight":         "attn_q_norm.weight",
	"self_attn.k_norm.weight":         "attn_k_norm.weight",
	"post_attention_layernorm.weight": "ffn_norm.weight",
	"mlp.gate_proj.weight":            "ffn_gate.weight",
	"mlp.up_proj.weight":              "ffn_up.weight",
	"mlp.down_proj.weight":            "ffn_down.weight",
	// MoE layers (docs/spec/moe.md §4.2): the experts stacked [E, rows,
	// cols] under names that say so (loadMoE reads either spelling).
	"mlp.gate.weight":                    "ffn_gate_inp.weight",
	"mlp.experts.gate_proj":              "ffn_gate_exps.weight",
	"mlp.experts.up_proj":                "ffn_up_exps.weight",
	"mlp.experts.down_proj":              "ffn_down_exps.weight",
	"mlp.experts.gate_up_proj":           "ffn_gate_up_exps.weight",
	"mlp.shared_expert.gate_proj.weight": "ffn_gate_shexp.weight",
	"mlp.shared_expert.up_proj.weight":   "ffn_up_shexp.weight",
	"mlp.shared_expert.down_proj.weight": "ffn_down_shexp.weight",
	"mlp.shared_expert_gate.weight":      "ffn_gate_inp_shexp.weight",
	// Qwen3.5's Gated DeltaNet (docs/spec/qwen35.md §6): ssm_a holds
	// −exp(A_log), under a name of its own; the conv kernel is squeezed.
	"linear_attn.in_proj_qkv.weight": "attn_qkv.weight",
	"linear_attn.in_proj_z.weight":   "attn_gate.weight",
	"linear_attn.in_proj_b.weight":   "ssm_beta.weight",
	"linear_attn.in_proj_a.weight":   "ssm_alpha.weight",
	"linear_attn.conv1d.weight":      "ssm_conv1d.weight",
	"linear_attn.dt_bias":            "ssm_dt.bias",
	"linear_attn.ssm_a":              "ssm_a",
	"linear_attn.norm.weight":        "ssm_norm.weight",
	"linear_attn.out_proj.weight":    "ssm_out.weight",
}

// ggufLayerAliases are GGUF per-layer names that stand for the same Hugging
// Face tensor as one in ggufLayerNames (qwen35's FFN norm).
var ggufLayerAliases = map[string]string{"post_attention_norm.weight": "post_attention_layernorm.weight"}

var ggufGlobalNames = map[string]string{
	"token_embd.weight":  "model.embed_tokens.weight",
	"output_norm.weight": "model.norm.weight",
	"output.weight":      "lm_head.weight",
}

// ggufIgnored are tensors read elsewhere (rope_freqs: ggufConfig).
var ggufIgnored = map[string]bool{"rope_freqs.weight": true}

var blkName = regexp.MustCompile(`^blk\.(\d{1,3})\.(.+)$`)

// ggufSet shows a GGUF file's tensors under their Hugging Face names and
// shapes (GGUF lists dimensions fastest first: ne [in, out] is [out, in]).
type ggufSet struct {
	f      *gguf.File
	byHF   map[string]*gguf.Tensor
	hfName []string
	used   map[string]bool
	mtp    int // tensors of the multi-token-prediction blocks, not run
}

func newGGUFSet(f *gguf.File) (*ggufSet, error) {
	s := &ggufSet{f: f, byHF: map[string]*gguf.Tensor{}, used: map[string]bool{}}
	trunk, err := ggufTrunkLayers(f)
	if err != nil {
		return nil, err
	}
	hfOf := map[string]string{}
	for k, v := range ggufLayerNames {
		hfOf[v] = k
	}
	for g, k := range ggufLayerAliases {
		hfOf[g] = k
	}
	for i := range f.Tensors {
		t := &f.Tensors[i]
		var hf string
		if m := blkName.FindStringSubmatch(t.Name); m != nil {
			n, _ := strconv.Atoi(m[1])
			if n >= trunk {
				s.mtp++ // an MTP block (ggufTrunkLayers): its own names, never run
				continue
			}
			if rest, ok := hfOf[m[2]]; ok {
				hf = fmt.Sprintf("model.layers.%d.%s", n, rest)
			}
		} else {
			hf = ggufGlobalNames[t.Name]
		}
		if hf == "" {
			if ggufIgnored[t.Name] {
				continue
			}
			return nil, fmt.Errorf("%w: %s: unexpected tensor %q", ErrUnsupported, f.Path, t.Name)
		}
		if dup, ok := s.byHF[hf]; ok {
			return nil, fmt.Errorf("%w: %s: tensors %q and %q are the same tensor", ErrBadFile, f.Path, dup.Name, t.Name)
		}
		s.byHF[hf] = t
		s.hfName = append(s.hfName, hf)
	}
	return s, nil
}

func (s *ggufSet) Tensor(name string) (safetensors.Tensor, bool) {
	t, ok := s.byHF[name]
	if !ok {
		return safetensors.Tensor{}, false
	}
	shape := make([]int, len(t.Dims))
	for i, d := range t.Dims {
		shape[len(t.Dims)-1-i] = int(d)
	}
	if strings.HasSuffix(name, "shared_expert_gate.weight") && len(shape) == 1 {
		shape = []int{1, shape[0]} // ne [h] or [h, 1]: llama.cpp allows the trailing 1
	}
	if strings.HasSuffix(name, "conv1d.weight") && len(shape) == 2 {
		shape = []int{shape[0], 1, shape[1]} // ne [K, C]: HF's [C, 1, K] squeezed
	}
	return safetensors.Tensor{Name: t.Name, DType: safetensors.DType(t.Type.String()), Shape: shape, Data: t.Data,
		File: fmt.Sprintf("%s (GGUF tensor %s)", s.f.Path, t.Name)}, true
}

// markUsed is called by the loader for each tensor it views.
func (s *ggufSet) markUsed(name string) { s.used[name] = true }

func (s *ggufSet) Names() []string  { return append([]string(nil), s.hfName...) }
func (s *ggufSet) FileBytes() int64 { return s.f.FileBytes() }

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

// checkAllUsed refuses tensors the architecture does not read (a layer
// beyond block_count, a bias the architecture has not): docs/spec/formats.md B.8
// step 17.
func (s *ggufSet) checkAllUsed() error {
	for _, n := range s.hfName {
		if !s.used[n] {
			return fmt.Errorf("%w: %s: tensor %q is not part of this architecture (or beyond block_count)", ErrBadFile, s.f.Path, s.byHF[n].Name)
		}
	}
	return nil
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

// eogTexts are control tokens that end a generation wherever the file's
// eos_token_id points (llama.cpp's end-of-generation set).
var eogTexts = map[string]bool{"<|endoftext|>": true, "<|im_end|>": true, "<|eot_id|>": true,
	"<|eom_id|>": true, "<|end_of_text|>": true, "<end_of_turn>": true, "<|end|>": true, "</s>": true}

// ggufTokenizer builds the vocabulary of tokenizer.ggml.* (docs/spec/formats.md B.8
// step 11) and the stop ids.
func ggufTokenizer(f *gguf.File, cfg Config) (*tokenizer.Tokenizer, []int, error) {
	bad := func(err error) (*tokenizer.Tokenizer, []int, error) {
		return nil, nil, fmt.Errorf("%w: %w", ErrBadFile, err)
	}
	var v tokenizer.Vocab
	var ok bool
	var err error
	if v.Model, ok, err = f.String("tokenizer.ggml.model"); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("%s: no tokenizer.ggml.model", f.Path)
		}
		return bad(err)
	}
	if v.Pre, _, err = f.String("tokenizer.ggml.pre"); err != nil {
		return bad(err)
	}
	if v.Tokens, ok, err = f.Strings("tokenizer.ggml.tokens"); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("%s: no tokenizer.ggml.tokens", f.Path)
		}
		return bad(err)
	}
	n := int64(len(v.Tokens))
	if n > int64(cfg.VocabSize) {
		return bad(fmt.Errorf("%s: %d tokens, more than the %d rows of token_embd.weight", f.Path, n, cfg.VocabSize))
	}
	types, _, err := f.Ints("tokenizer.ggml.token_type", 1, 6)
	if err != nil {
		return bad(err)
	}
	for _, t := range types {
		v.Types = append(v.Types, int32(t))
	}
	if v.Scores, _, err = f.Float32s("tokenizer.ggml.scores"); err != nil {
		return bad(err)
	}
	if v.Merges, _, err = f.Strings("tokenizer.ggml.merges"); err != nil {
		return bad(err)
	}
	ids := map[string]int{}
	for _, k := range []string{"bos", "eos", "unknown", "eot", "eom"} {
		id, ok, err := f.Int("tokenizer.ggml."+k+"_token_id", 0, n-1)
		if err != nil {
			return bad(err)
		}
		ids[k] = -1
		if ok {
			ids[k] = int(id)
		}
	}
	v.BOS, v.UNK = ids["bos"], ids["unknown"]
	v.AddBOS = v.Model == "llama" || v.Pre == "llama-bpe" // llama.cpp's defaults
	if b, ok, err := f.Bool("tokenizer.ggml.add_bos_token"); err != nil {
		return bad(err)
	} else if ok {
		v.AddBOS = b
	}
	v.AddBOS = v.AddBOS && v.BOS >= 0
	v.AddSpacePrefix = true
	if b, ok, err := f.Bool("tokenizer.ggml.add_space_prefix"); err != nil {
		return bad(err)
	} else if ok {
		v.AddSpacePrefix = b
	}
	if v.ChatTemplate, _, err = f.String("tokenizer.chat_template"); err != nil {
		return bad(err)
	}
	tok, err := tokenizer.FromVocab(v)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %w", ErrBadFile, f.Path, err)
	}
	var eos []int
	seen := map[int]bool{}
	add := func(id int) {
		if id >= 0 && !seen[id] {
			seen[id] = true
			eos = append(eos, id)
		}
	}
	add(ids["eos"])
	add(ids["eot"])
	add(ids["eom"])
	for id, s := range v.Tokens {
		if eogTexts[s] && tok.IsSpecial(id) {
			add(id)
		}
	}
	return tok, eos, nil
}

// LoadTokenizer reads only the vocabulary of a GGUF model file (for
// `loupe tokenize`), with the same checks as Load.
func LoadTokenizer(path string) (*tokenizer.Tokenizer, error) {
	tok, _, err := ggufVocabOnly(path)
	return tok, err
}

// ggufVocabOnly reads a GGUF file's tokenizer and end-of-generation ids
// without its weights, with the same checks as Load.
func ggufVocabOnly(path string) (_ *tokenizer.Tokenizer, eos []int, err error) {
	defer recoverError(&err)
	f, err := gguf.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrBadFile, err)
	}
	defer f.Close()
	set, err := newGGUFSet(f)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := ggufConfig(f, set)
	if err != nil {
		return nil, nil, err
	}
	return ggufTokenizer(f, cfg)
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
