package engine

// Loading a GGUF file (docs/spec/formats.md part B): hyper-parameters from the
// {arch}.* keys (gguf_config.go), the vocabulary from tokenizer.ggml.*
// (gguf_tokenizer.go), and here the tensors, mapped back to their Hugging
// Face names so that every architecture file loads both formats with the
// same names and shapes.

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"loupe/engine/gguf"
	"loupe/engine/safetensors"
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

func (s *ggufSet) Names() []string { return append([]string(nil), s.hfName...) }

func (s *ggufSet) FileBytes() int64 { return s.f.FileBytes() }

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
