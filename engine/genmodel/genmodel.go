package genmodel

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"loupe/assets"
	"loupe/engine/safetensors"
)

// ErrExists is wrapped when the output folder already holds a model.
var ErrExists = errors.New("folder already holds model files")

// Qwen2.5 base models' special ids (docs/spec/qwen2.md §5, docs/spec/sampling.md §4).
const (
	bosTokenID = 151643 // <|endoftext|>
	eosTokenID = 151643
)

// modelFiles are the names Write creates; any of them (or any other
// .safetensors file) already in the folder makes Write refuse.
var modelFiles = []string{"config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json",
	safetensors.SingleFileName, safetensors.IndexFileName}

// Write creates dir (if missing) and writes a random-weight model of the
// named shape: config.json, generation_config.json, model.safetensors (dtype
// "bf16" or "f32") and the Qwen2.5 tokenizer.json. The same seed gives the
// same bytes. It never replaces files: a folder that already holds model
// files is refused with ErrExists.
func Write(dir, shape string, seed uint64, dtype string) error {
	s, ok := Lookup(shape)
	if !ok {
		return fmt.Errorf("genmodel: unknown shape %q (want one of %s)", shape, strings.Join(Shapes(), ", "))
	}
	if dtype != "bf16" && dtype != "f32" {
		return fmt.Errorf("genmodel: unknown dtype %q (want bf16 or f32)", dtype)
	}
	if err := refuseExisting(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("genmodel: %w", err)
	}
	var created []string
	err := writeAll(dir, s, shape, seed, dtype, &created)
	if err != nil {
		for _, p := range created {
			os.Remove(p)
		}
	}
	return err
}

func refuseExisting(dir string) error {
	for _, name := range modelFiles {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return fmt.Errorf("genmodel: %s: %w (%s); refusing to overwrite", dir, ErrExists, name)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.safetensors")); len(m) > 0 {
		return fmt.Errorf("genmodel: %s: %w (%s); refusing to overwrite", dir, ErrExists, filepath.Base(m[0]))
	}
	return nil
}

func writeAll(dir string, s Shape, shape string, seed uint64, dtype string, created *[]string) error {
	f32 := dtype == "f32"
	specs := s.Tensors()
	tensors := make([]safetensors.Tensor, len(specs))
	byName := make(map[string]TensorSpec, len(specs))
	for i, sp := range specs {
		tensors[i] = safetensors.Tensor{Name: sp.Name, DType: "BF16", Shape: sp.Shape}
		if f32 {
			tensors[i].DType = "F32"
		}
		byName[sp.Name] = sp
	}
	meta := map[string]string{"format": "pt", "generator": "loupe gen-model",
		"shape": shape, "seed": strconv.FormatUint(seed, 10)}
	buf := make([]byte, chunkBlocks*blockElems*4)
	weights := filepath.Join(dir, safetensors.SingleFileName)
	*created = append(*created, weights) // WriteStream removes it itself on error
	err := safetensors.WriteStream(weights, tensors, meta, func(t safetensors.Tensor, w io.Writer) error {
		return writeTensor(w, byName[t.Name], seed, f32, buf)
	})
	if err != nil {
		return fmt.Errorf("genmodel: %w", err)
	}
	conf, err := configJSON(s, dtype)
	if err != nil {
		return err
	}
	files := []namedFile{{"generation_config.json", generationConfigJSON()}, {"tokenizer.json", assets.QwenTokenizer}}
	if s.Family == "qwen3" {
		files = qwen3Files()
	}
	if s.Family == "qwen3_5" {
		if files, err = qwen35Files(); err != nil {
			return err
		}
	}
	for _, f := range append([]namedFile{{"config.json", conf}}, files...) {
		p := filepath.Join(dir, f.name)
		if err := writeNew(p, f.data); err != nil {
			return err
		}
		*created = append(*created, p)
	}
	return nil
}

// namedFile is one file of the folder and its bytes.
type namedFile struct {
	name string
	data []byte
}

// writeNew creates path, failing if it exists.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("genmodel: %w", err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("genmodel: %s: %w", path, err)
	}
	return nil
}

// qwen2Config mirrors the field order of a Hugging Face Qwen2.5 base
// config.json; numbers that Python writes as floats keep their spelling.
type qwen2Config struct {
	Architectures         []string    `json:"architectures"`
	AttentionDropout      json.Number `json:"attention_dropout"`
	BOSTokenID            int         `json:"bos_token_id"`
	EOSTokenID            int         `json:"eos_token_id"`
	HiddenAct             string      `json:"hidden_act"`
	HiddenSize            int         `json:"hidden_size"`
	InitializerRange      json.Number `json:"initializer_range"`
	IntermediateSize      int         `json:"intermediate_size"`
	MaxPositionEmbeddings int         `json:"max_position_embeddings"`
	MaxWindowLayers       int         `json:"max_window_layers"`
	ModelType             string      `json:"model_type"`
	NumAttentionHeads     int         `json:"num_attention_heads"`
	NumHiddenLayers       int         `json:"num_hidden_layers"`
	NumKeyValueHeads      int         `json:"num_key_value_heads"`
	RMSNormEps            json.Number `json:"rms_norm_eps"`
	RopeScaling           any         `json:"rope_scaling"`
	RopeTheta             json.Number `json:"rope_theta"`
	SlidingWindow         int         `json:"sliding_window"`
	TieWordEmbeddings     bool        `json:"tie_word_embeddings"`
	TorchDType            string      `json:"torch_dtype"`
	TransformersVersion   string      `json:"transformers_version"`
	UseCache              bool        `json:"use_cache"`
	UseSlidingWindow      bool        `json:"use_sliding_window"`
	VocabSize             int         `json:"vocab_size"`
}

func configJSON(s Shape, dtype string) ([]byte, error) {
	if s.Family == "qwen3" {
		return qwen3ConfigJSON(s, dtype)
	}
	if s.Family == "qwen3_5" {
		return qwen35ConfigJSON(s, dtype)
	}
	torch := map[string]string{"bf16": "bfloat16", "f32": "float32"}[dtype]
	c := qwen2Config{
		Architectures: []string{"Qwen2ForCausalLM"}, AttentionDropout: "0.0",
		BOSTokenID: bosTokenID, EOSTokenID: eosTokenID, HiddenAct: "silu",
		HiddenSize: s.HiddenSize, InitializerRange: "0.02", IntermediateSize: s.IntermediateSize,
		MaxPositionEmbeddings: s.MaxPositionEmbeddings, MaxWindowLayers: s.MaxWindowLayers,
		ModelType: "qwen2", NumAttentionHeads: s.NumAttentionHeads, NumHiddenLayers: s.NumHiddenLayers,
		NumKeyValueHeads: s.NumKeyValueHeads, RMSNormEps: "1e-06", RopeTheta: "1000000.0",
		SlidingWindow: s.MaxPositionEmbeddings, TieWordEmbeddings: s.TieWordEmbeddings,
		TorchDType: torch, TransformersVersion: "4.43.1", UseCache: true, VocabSize: s.VocabSize,
	}
	if s.Family == "llama" {
		c.Architectures, c.ModelType = []string{"LlamaForCausalLM"}, "llama"
		c.RMSNormEps, c.RopeTheta = "1e-05", "10000.0"
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("genmodel: config.json: %w", err)
	}
	return append(b, '\n'), nil
}

// generationConfigJSON is Qwen2.5 base's generation_config.json.
func generationConfigJSON() []byte {
	return []byte(`{
  "bos_token_id": 151643,
  "do_sample": false,
  "eos_token_id": 151643,
  "max_new_tokens": 2048,
  "transformers_version": "4.43.1"
}
`)
}
