// Package convert writes a Hugging Face checkpoint (config.json,
// tokenizer.json, *.safetensors) as one GGUF file (docs/spec/formats.md
// part B) the way llama.cpp's convert_hf_to_gguf.py and llama-quantize
// do: f32, bf16, Q8_0, or the Q4_K_M and Q5_K_M mixes. The quantisation
// experiment runs it on a user's model; gen-model on its random-weight
// test models.
package convert

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"loupe/engine/chat"
	"loupe/engine/gguf"
	"loupe/engine/safetensors"
	"loupe/engine/tokenizer"
	"loupe/kernels"
)

// GGUFQuants are the weight types WriteGGUF writes: f32 and bf16 keep the
// checkpoint's values, q8_0 quantises every matrix, q4_k_m and q5_k_m mix
// Q4_K or Q5_K with Q6_K the way llama.cpp's llama-quantize does for
// Q4_K_M and Q5_K_M.
var GGUFQuants = []string{"f32", "bf16", "q8_0", "q4_k_m", "q5_k_m"}

// ggufFileType is general.file_type (llama_ftype) of each choice.
var ggufFileType = map[string]uint32{"f32": 0, "bf16": 32, "q8_0": 7, "q4_k_m": 15, "q5_k_m": 17}

// hfConfig is the part of config.json the converter needs.
type hfConfig struct {
	ModelType          string  `json:"model_type"`
	HiddenSize         int     `json:"hidden_size"`
	IntermediateSize   int     `json:"intermediate_size"`
	NumHiddenLayers    int     `json:"num_hidden_layers"`
	NumAttentionHeads  int     `json:"num_attention_heads"`
	NumKeyValueHeads   int     `json:"num_key_value_heads"`
	HeadDim            int     `json:"head_dim"`
	RMSNormEps         float64 `json:"rms_norm_eps"`
	RopeTheta          float64 `json:"rope_theta"`
	MaxPositions       int     `json:"max_position_embeddings"`
	TieWordEmbeddings  bool    `json:"tie_word_embeddings"`
	VocabSize          int     `json:"vocab_size"`
	RopeScaling        any     `json:"rope_scaling"`
	BOSTokenID         *int    `json:"bos_token_id"`
	NumExperts         int     `json:"num_experts"`
	NumExpertsPerTok   int     `json:"num_experts_per_tok"`
	MoeIntermediate    int     `json:"moe_intermediate_size"`
	SharedIntermediate int     `json:"shared_expert_intermediate_size"`

	// Qwen3.5 (qwen35.go): the decoder's settings sit in text_config.
	TextConfig     json.RawMessage `json:"text_config"`
	RopeParameters *struct {
		RopeTheta           float64 `json:"rope_theta"`
		PartialRotaryFactor float64 `json:"partial_rotary_factor"`
	} `json:"rope_parameters"`
	FullAttentionInterval int      `json:"full_attention_interval"`
	LinearNumKeyHeads     int      `json:"linear_num_key_heads"`
	LinearNumValueHeads   int      `json:"linear_num_value_heads"`
	LinearKeyHeadDim      int      `json:"linear_key_head_dim"`
	LinearValueHeadDim    int      `json:"linear_value_head_dim"`
	LinearConvKernelDim   int      `json:"linear_conv_kernel_dim"`
	EOSTokenID            any      `json:"eos_token_id"`
	Architectures         []string `json:"architectures"`
}

// WriteGGUF converts the model folder src (config.json, tokenizer.json
// with a byte-level BPE, safetensors weights of a qwen2, qwen3, llama,
// olmoe, qwen3_moe, qwen3_5 or qwen3_5_moe model) into a new GGUF file dst, laid out as llama.cpp's
// convert_hf_to_gguf.py and llama-quantize would: tensor names of
// docs/spec/formats.md B.3, dimensions reversed, llama's Q and K rows permuted into
// Meta's interleaved order (docs/spec/llama.md §3), norms and biases F32. It never
// replaces a file.
func WriteGGUF(src, dst, quant string) error {
	return WriteGGUFContext(context.Background(), src, dst, quant)
}

// WriteGGUFContext is WriteGGUF stopping when ctx is cancelled (checked
// between rows): the partial file is removed and ctx's error returned.
func WriteGGUFContext(ctx context.Context, src, dst, quant string) error {
	p, err := openConversion(src, quant)
	if err != nil {
		return err
	}
	defer p.set.Close()
	for i := range p.tensors {
		if fill := p.tensors[i].Fill; fill != nil {
			p.tensors[i].Fill = func(w io.Writer) error { return fill(ctxWriter{ctx, w}) }
		}
	}
	if err := gguf.WriteFile(dst, ggufMetadata(p.name, p.cfg, p.tok, p.template, quant), p.tensors); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("convert: %w", err)
	}
	return nil
}

// GGUFPlan is what WriteGGUF would write from src: the file's size in
// bytes (tensors and metadata) and the matrices whose type is not the
// one the mix asks for (Fallback).
func GGUFPlan(src, quant string) (size int64, fallbacks []Fallback, err error) {
	p, err := openConversion(src, quant)
	if err != nil {
		return 0, nil, err
	}
	defer p.set.Close()
	meta := safetensors.CountWriter{W: io.Discard}
	if err := gguf.Write(&meta, ggufMetadata(p.name, p.cfg, p.tok, p.template, quant), nil); err != nil {
		return 0, nil, fmt.Errorf("convert: %w", err)
	}
	size = int64(meta.N)
	for _, t := range p.tensors {
		size += int64(t.ByteSize()) + 32 // + alignment padding at most
		if len(t.Dims) == 2 {
			if f, ok := fallbackOf(t.Name, p.cfg, quant, int(t.Dims[0]), t.Type); ok {
				fallbacks = append(fallbacks, f)
			}
		}
	}
	return size, fallbacks, nil
}

// Fallback is a matrix written in another type than the mix asks for: its
// rows do not fill the wanted type's blocks.
type Fallback struct {
	Tensor    string // GGUF name
	Cols      int
	Want, Got string // GGUF type names
}

// fallbackOf reports the matrix name of cols columns written as got when
// the mix wants a K-quant of 256-weight blocks.
func fallbackOf(name string, c hfConfig, quant string, cols int, got gguf.Type) (Fallback, bool) {
	if quant != "q4_k_m" && quant != "q5_k_m" || cols%256 == 0 {
		return Fallback{}, false
	}
	want := mixType(name, c, quant)
	return Fallback{Tensor: name, Cols: cols, Want: want.String(), Got: got.String()}, true
}

// conversion is a model folder opened for WriteGGUF.
type conversion struct {
	name     string // general.name: the source folder's name
	cfg      hfConfig
	template string // the folder's chat template, "" when it has none
	tok      *tokenizer.Tokenizer
	set      *safetensors.Set
	tensors  []gguf.WriteTensor
}

func openConversion(src, quant string) (*conversion, error) {
	if _, ok := ggufFileType[quant]; !ok {
		return nil, fmt.Errorf("convert: unknown GGUF type %q (want one of %s)", quant, strings.Join(GGUFQuants, ", "))
	}
	data, err := os.ReadFile(filepath.Join(src, "config.json"))
	if err != nil {
		return nil, fmt.Errorf("convert: %w", err)
	}
	var c hfConfig
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("convert: config.json: %w", err)
	}
	if _, ok := ggufArch[c.ModelType]; !ok {
		return nil, fmt.Errorf("convert: model_type %q (the converter writes qwen2, qwen3, llama, olmoe, qwen3_moe, qwen3_5 and qwen3_5_moe)", c.ModelType)
	}
	if len(c.TextConfig) > 0 { // Qwen3.5: the decoder's settings
		top := c
		c = hfConfig{}
		if err := json.Unmarshal(top.TextConfig, &c); err != nil {
			return nil, fmt.Errorf("convert: config.json: text_config: %w", err)
		}
		c.ModelType, c.Architectures = top.ModelType, top.Architectures
		if c.RopeParameters != nil && c.RopeTheta == 0 {
			c.RopeTheta = c.RopeParameters.RopeTheta
		}
	}
	if c.RopeScaling != nil {
		return nil, fmt.Errorf("convert: rope_scaling is not converted")
	}
	if c.HeadDim == 0 {
		c.HeadDim = c.HiddenSize / c.NumAttentionHeads
	}
	if c.NumKeyValueHeads == 0 {
		c.NumKeyValueHeads = c.NumAttentionHeads
	}
	tok, err := tokenizer.Load(filepath.Join(src, "tokenizer.json"))
	if err != nil {
		return nil, fmt.Errorf("convert: %w", err)
	}
	template, err := chat.SourceFromDir(src)
	if err != nil && !errors.Is(err, chat.ErrNoTemplate) {
		return nil, fmt.Errorf("convert: chat template: %w", err)
	}
	set, err := safetensors.Open(src)
	if err != nil {
		return nil, fmt.Errorf("convert: %w", err)
	}
	tensors, err := ggufTensors(set, c, quant)
	if err != nil {
		set.Close()
		return nil, err
	}
	return &conversion{name: filepath.Base(src), cfg: c, template: template, tok: tok, set: set, tensors: tensors}, nil
}

// ctxWriter fails a write once ctx is cancelled: Fill writes row by row.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(b)
}

// ggufArch is general.architecture of each model_type the converter writes.
var ggufArch = map[string]string{"qwen2": "qwen2", "qwen3": "qwen3", "llama": "llama", "olmoe": "olmoe", "qwen3_moe": "qwen3moe",
	"qwen3_5": "qwen35", "qwen3_5_moe": "qwen35moe"}

// ggufMetadata is the file's key-values: the shape, the tokenizer's lists
// and the chat template (tokenizer.chat_template) when the folder has one.
func ggufMetadata(name string, c hfConfig, tok *tokenizer.Tokenizer, template, quant string) []gguf.KV {
	a := ggufArch[c.ModelType] + "."
	kv := []gguf.KV{
		{Key: "general.architecture", Value: ggufArch[c.ModelType]},
		{Key: "general.name", Value: name},
		{Key: "general.file_type", Value: ggufFileType[quant]},
		{Key: a + "context_length", Value: uint32(c.MaxPositions)},
		{Key: a + "embedding_length", Value: uint32(c.HiddenSize)},
		{Key: a + "block_count", Value: uint32(c.NumHiddenLayers)},
		{Key: a + "attention.head_count", Value: uint32(c.NumAttentionHeads)},
		{Key: a + "attention.head_count_kv", Value: uint32(c.NumKeyValueHeads)},
		{Key: a + "attention.layer_norm_rms_epsilon", Value: float32(c.RMSNormEps)},
		{Key: a + "rope.freq_base", Value: float32(c.RopeTheta)},
		{Key: a + "rope.dimension_count", Value: uint32(c.rotaryDim())},
	}
	if c.IntermediateSize > 0 { // absent from Qwen3.5-MoE's config
		kv = append(kv, gguf.KV{Key: a + "feed_forward_length", Value: uint32(c.IntermediateSize)})
	}
	if c.hybrid() {
		kv = append(kv, qwen35Metadata(c, a)...)
	}
	if c.HeadDim != c.HiddenSize/c.NumAttentionHeads {
		kv = append(kv, gguf.KV{Key: a + "attention.key_length", Value: uint32(c.HeadDim)},
			gguf.KV{Key: a + "attention.value_length", Value: uint32(c.HeadDim)})
	}
	if c.NumExperts > 0 { // docs/spec/moe.md §4.2; olmoe's expert width is feed_forward_length
		kv = append(kv, gguf.KV{Key: a + "expert_count", Value: uint32(c.NumExperts)},
			gguf.KV{Key: a + "expert_used_count", Value: uint32(c.NumExpertsPerTok)})
		if c.MoeIntermediate > 0 {
			kv = append(kv, gguf.KV{Key: a + "expert_feed_forward_length", Value: uint32(c.MoeIntermediate)})
		}
		if c.SharedIntermediate > 0 {
			kv = append(kv, gguf.KV{Key: a + "expert_shared_feed_forward_length", Value: uint32(c.SharedIntermediate)})
		}
	}
	if quant == "q8_0" || quant == "q4_k_m" || quant == "q5_k_m" {
		kv = append(kv, gguf.KV{Key: "general.quantization_version", Value: uint32(2)})
	}
	tokens, types, merges := tok.Lists(c.VocabSize)
	kv = append(kv,
		gguf.KV{Key: "tokenizer.ggml.model", Value: "gpt2"},
		gguf.KV{Key: "tokenizer.ggml.pre", Value: c.pre()},
		gguf.KV{Key: "tokenizer.ggml.tokens", Value: tokens},
		gguf.KV{Key: "tokenizer.ggml.token_type", Value: types},
		gguf.KV{Key: "tokenizer.ggml.merges", Value: merges},
		gguf.KV{Key: "tokenizer.ggml.add_bos_token", Value: false},
	)
	if id, ok := firstID(c.EOSTokenID); ok && id < len(tokens) {
		kv = append(kv, gguf.KV{Key: "tokenizer.ggml.eos_token_id", Value: uint32(id)})
	}
	if c.BOSTokenID != nil && *c.BOSTokenID < len(tokens) {
		kv = append(kv, gguf.KV{Key: "tokenizer.ggml.bos_token_id", Value: uint32(*c.BOSTokenID)})
	}
	if template != "" {
		kv = append(kv, gguf.KV{Key: "tokenizer.chat_template", Value: template})
	}
	return kv
}

func firstID(v any) (int, bool) {
	switch x := v.(type) {
	case float64:
		return int(x), true
	case []any:
		if len(x) > 0 {
			return firstID(x[0])
		}
	}
	return 0, false
}

// ggufLayer maps the per-layer names (docs/spec/formats.md B.3).
var ggufLayer = [][2]string{
	{"input_layernorm.weight", "attn_norm.weight"},
	{"self_attn.q_proj.weight", "attn_q.weight"}, {"self_attn.q_proj.bias", "attn_q.bias"},
	{"self_attn.k_proj.weight", "attn_k.weight"}, {"self_attn.k_proj.bias", "attn_k.bias"},
	{"self_attn.v_proj.weight", "attn_v.weight"}, {"self_attn.v_proj.bias", "attn_v.bias"},
	{"self_attn.o_proj.weight", "attn_output.weight"},
	{"self_attn.q_norm.weight", "attn_q_norm.weight"}, {"self_attn.k_norm.weight", "attn_k_norm.weight"},
	{"post_attention_layernorm.weight", "ffn_norm.weight"},
	{"mlp.gate_proj.weight", "ffn_gate.weight"}, {"mlp.up_proj.weight", "ffn_up.weight"},
	{"mlp.down_proj.weight", "ffn_down.weight"},
}

// ggufTensors lists the tensors in llama.cpp's order with their types and
// the functions that encode them from the checkpoint. An MoE layer's
// experts are stacked into ffn_{gate,up,down}_exps in expert order, its
// router (ffn_gate_inp) kept F32 as llama.cpp's converter does.
func ggufTensors(set *safetensors.Set, c hfConfig, quant string) ([]gguf.WriteTensor, error) {
	if c.hybrid() {
		return qwen35GGUFTensors(set, c, quant)
	}
	type entry struct{ hf, name string }
	list := []entry{{"model.embed_tokens.weight", "token_embd.weight"}}
	for i := range c.NumHiddenLayers {
		for _, m := range ggufLayer {
			list = append(list, entry{fmt.Sprintf("model.layers.%d.%s", i, m[0]), fmt.Sprintf("blk.%d.%s", i, m[1])})
		}
		if c.NumExperts > 0 {
			list = append(list, entry{fmt.Sprintf("model.layers.%d.mlp.gate.weight", i), fmt.Sprintf("blk.%d.ffn_gate_inp.weight", i)})
			for _, m := range [][2]string{{"gate_proj", "ffn_gate_exps"}, {"up_proj", "ffn_up_exps"}, {"down_proj", "ffn_down_exps"}} {
				list = append(list, entry{fmt.Sprintf("model.layers.%d.mlp.experts.*.%s.weight", i, m[0]), fmt.Sprintf("blk.%d.%s.weight", i, m[1])})
			}
		}
	}
	list = append(list, entry{"model.norm.weight", "output_norm.weight"})
	if !c.TieWordEmbeddings {
		list = append(list, entry{"lm_head.weight", "output.weight"})
	}
	var out []gguf.WriteTensor
	for _, e := range list {
		if strings.Contains(e.hf, ".*.") {
			wt, err := ggufStacked(set, e.hf, e.name, c, quant)
			if err != nil {
				return nil, err
			}
			out = append(out, wt)
			continue
		}
		t, ok := set.Tensor(e.hf)
		if !ok {
			if strings.Contains(e.hf, ".bias") || strings.Contains(e.hf, "_norm.weight") && strings.Contains(e.hf, "self_attn") || strings.Contains(e.hf, ".mlp.") && c.NumExperts > 0 {
				continue // optional by architecture
			}
			return nil, fmt.Errorf("convert: tensor %s is missing", e.hf)
		}
		q := quant
		if strings.HasSuffix(e.name, "ffn_gate_inp.weight") {
			q = "f32"
		}
		wt, err := ggufTensor(t, e.name, c, q)
		if err != nil {
			return nil, err
		}
		out = append(out, wt)
	}
	return out, nil
}

// ggufStacked stacks the experts' tensors named by pattern ("*" the
// expert id) into one [E, rows, cols] tensor (ne [cols, rows, E]), each
// row encoded as the quant mix gives the stacked name.
func ggufStacked(set *safetensors.Set, pattern, name string, c hfConfig, quant string) (gguf.WriteTensor, error) {
	experts := make([]safetensors.Tensor, c.NumExperts)
	for e := range experts {
		n := strings.Replace(pattern, "*", fmt.Sprint(e), 1)
		t, ok := set.Tensor(n)
		if !ok || len(t.Shape) != 2 {
			return gguf.WriteTensor{}, fmt.Errorf("convert: tensor %s is missing or not 2-D", n)
		}
		experts[e] = t
	}
	rows, cols := experts[0].Shape[0], experts[0].Shape[1]
	typ, q := matrixType(name, c, quant, cols, experts[0].DType)
	wt := gguf.WriteTensor{Name: name, Type: typ, Dims: []uint64{uint64(cols), uint64(rows), uint64(c.NumExperts)}}
	wt.Fill = func(w io.Writer) error {
		row := make([]float32, cols)
		var enc []byte
		for _, t := range experts {
			for r := range rows {
				if err := widenRow(t, r, row); err != nil {
					return err
				}
				if _, err := w.Write(encodeRow(enc[:0], typ, q, row)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return wt, nil
}

// ggufTensor encodes one tensor: 1-D ones as F32; matrices as the type
// the quant mix gives them, rows permuted for llama's Q and K.
func ggufTensor(t safetensors.Tensor, name string, c hfConfig, quant string) (gguf.WriteTensor, error) {
	dims := make([]uint64, len(t.Shape))
	for i, d := range t.Shape {
		dims[len(t.Shape)-1-i] = uint64(d)
	}
	wt := gguf.WriteTensor{Name: name, Dims: dims, Type: gguf.F32}
	if len(t.Shape) == 1 {
		v, err := t.F32()
		if err != nil {
			return wt, fmt.Errorf("convert: %w", err)
		}
		wt.Data = f32Bytes(v)
		return wt, nil
	}
	rows, cols := t.Shape[0], t.Shape[1]
	perm := identity(rows)
	if c.ModelType == "llama" && strings.HasSuffix(name, "attn_q.weight") {
		perm = metaPermutation(rows, c.NumAttentionHeads)
	} else if c.ModelType == "llama" && strings.HasSuffix(name, "attn_k.weight") {
		perm = metaPermutation(rows, c.NumKeyValueHeads)
	}
	typ, q := matrixType(name, c, quant, cols, t.DType)
	wt.Type = typ
	wt.Fill = func(w io.Writer) error {
		row := make([]float32, cols)
		var enc []byte
		for r := range rows {
			src := perm[r]
			if typ == gguf.BF16 && t.DType == "BF16" {
				enc = append(enc[:0], t.Data[src*cols*2:(src+1)*cols*2]...)
			} else {
				if err := widenRow(t, src, row); err != nil {
					return err
				}
				enc = encodeRow(enc[:0], typ, q, row)
			}
			if _, err := w.Write(enc); err != nil {
				return err
			}
		}
		return nil
	}
	return wt, nil
}

// matrixType chooses a matrix's GGUF type: q4_k_m (q5_k_m) is llama.cpp's mix
// (output head, or the tied embedding, Q6_K; attn_v and ffn_down Q6_K in
// the first and last eighth of the layers and every third between; Q4_K
// (Q5_K) elsewhere), Q8_0 where the columns do not fill 256-weight blocks. There
// llama-quantize writes Q6_K's fallback, Q8_0, too, but Q5_0 for Q4_K's:
// Loupe has no Q5_0 kernel, so its copy is a little larger (GGUFPlan
// lists these matrices).
func matrixType(name string, c hfConfig, quant string, cols int, src safetensors.DType) (gguf.Type, kernels.Quant) {
	switch quant {
	case "f32":
		return gguf.F32, 0
	case "bf16":
		return gguf.BF16, 0
	case "q8_0":
		if cols%32 != 0 {
			return gguf.F32, 0
		}
		return gguf.Q8_0, kernels.Q8_0
	}
	if cols%256 != 0 {
		if cols%32 != 0 {
			return gguf.F32, 0
		}
		return gguf.Q8_0, kernels.Q8_0
	}
	switch mixType(name, c, quant) {
	case gguf.Q6_K:
		return gguf.Q6_K, kernels.Q6K
	case gguf.Q5_K:
		return gguf.Q5_K, kernels.Q5K
	}
	return gguf.Q4_K, kernels.Q4K
}

// mixType is the type llama-quantize's Q4_K_M (Q5_K_M) gives a matrix
// whose rows fill 256-weight blocks: Q6_K where it wants more bits, else
// Q4_K (Q5_K).
func mixType(name string, c hfConfig, quant string) gguf.Type {
	var layer int
	fmt.Sscanf(name, "blk.%d.", &layer)
	n := c.NumHiddenLayers
	moreBits := layer < n/8 || layer >= 7*n/8 || (layer-n/8)%3 == 2
	switch {
	case name == "output.weight" || name == "token_embd.weight" && c.TieWordEmbeddings:
		return gguf.Q6_K
	case (strings.HasSuffix(name, "attn_v.weight") || strings.HasSuffix(name, "ffn_down.weight") || strings.HasSuffix(name, "ffn_down_exps.weight")) && moreBits:
		return gguf.Q6_K
	}
	if quant == "q5_k_m" {
		return gguf.Q5_K
	}
	return gguf.Q4_K
}

func identity(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}

// metaPermutation is convert_hf_to_gguf.py's LlamaModel.permute as a row
// map: within each head of d rows, row 2i+j of the GGUF tensor is row
// j·d/2 + i of the Hugging Face one (reshape [heads, 2, d/2], swap the last
// two axes).
func metaPermutation(rows, heads int) []int {
	d := rows / heads
	p := make([]int, rows)
	for h := range heads {
		for i := range d / 2 {
			for j := range 2 {
				p[h*d+2*i+j] = h*d + j*d/2 + i
			}
		}
	}
	return p
}

func widenRow(t safetensors.Tensor, r int, row []float32) error {
	cols := len(row)
	switch t.DType {
	case "BF16":
		for i := range row {
			row[i] = kernels.BF16(binary.LittleEndian.Uint16(t.Data[(r*cols+i)*2:])).Float32()
		}
	case "F32":
		for i := range row {
			row[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.Data[(r*cols+i)*4:]))
		}
	case "F16":
		for i := range row {
			row[i] = kernels.F16ToF32(binary.LittleEndian.Uint16(t.Data[(r*cols+i)*2:]))
		}
	default:
		return fmt.Errorf("convert: tensor %s has dtype %s", t.Name, t.DType)
	}
	return nil
}

func encodeRow(dst []byte, typ gguf.Type, q kernels.Quant, row []float32) []byte {
	switch typ {
	case gguf.F32:
		return append(dst, f32Bytes(row)...)
	case gguf.BF16:
		for _, v := range row {
			dst = binary.LittleEndian.AppendUint16(dst, uint16(kernels.FromFloat32(v)))
		}
		return dst
	}
	n := len(dst)
	dst = append(dst, make([]byte, q.RowBytes(len(row)))...)
	kernels.QuantizeRow(q, dst[n:], row)
	return dst
}

func f32Bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}
