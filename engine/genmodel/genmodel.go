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
	if s.Family == "qwen3" || s.Family == "qwen3_moe" {
		files = qwen3Files()
	}
	if s.Family == "qwen3_5" || s.Family == "qwen3_5_moe" {
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

// configJSON writes the shape's config.json as its family's checkpoints
// do: the fields of configFields, keys sorted as transformers writes them.
func configJSON(s Shape, dtype string) ([]byte, error) {
	torch := map[string]string{"bf16": "bfloat16", "f32": "float32"}[dtype]
	var fields map[string]any
	switch s.Family {
	case "qwen3":
		fields = qwen3ConfigFields(s, torch)
	case "qwen3_5":
		fields = qwen35ConfigFields(s, torch)
	case "olmoe":
		fields = olmoeConfigFields(s, torch)
	case "qwen3_moe":
		fields = qwen3moeConfigFields(s, torch)
	case "qwen3_5_moe":
		fields = qwen35moeConfigFields(s, torch)
	default:
		fields = qwen2ConfigFields(s, torch)
	}
	b, err := json.MarshalIndent(fields, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("genmodel: config.json: %w", err)
	}
	return append(b, '\n'), nil
}

// qwen2ConfigFields are a Hugging Face Qwen2.5 base config.json's fields
// (Llama's with its own names, eps and θ); numbers that Python writes as
// floats keep their spelling.
func qwen2ConfigFields(s Shape, torch string) map[string]any {
	c := map[string]any{
		"architectures": []string{"Qwen2ForCausalLM"}, "attention_dropout": json.Number("0.0"),
		"bos_token_id": bosTokenID, "eos_token_id": eosTokenID, "hidden_act": "silu",
		"hidden_size": s.HiddenSize, "initializer_range": json.Number("0.02"), "intermediate_size": s.IntermediateSize,
		"max_position_embeddings": s.MaxPositionEmbeddings, "max_window_layers": s.MaxWindowLayers,
		"model_type": "qwen2", "num_attention_heads": s.NumAttentionHeads, "num_hidden_layers": s.NumHiddenLayers,
		"num_key_value_heads": s.NumKeyValueHeads, "rms_norm_eps": json.Number("1e-06"), "rope_scaling": nil,
		"rope_theta": json.Number("1000000.0"), "sliding_window": s.MaxPositionEmbeddings,
		"tie_word_embeddings": s.TieWordEmbeddings, "torch_dtype": torch, "transformers_version": "4.43.1",
		"use_cache": true, "use_sliding_window": false, "vocab_size": s.VocabSize,
	}
	if s.Family == "llama" {
		c["architectures"], c["model_type"] = []string{"LlamaForCausalLM"}, "llama"
		c["rms_norm_eps"], c["rope_theta"] = json.Number("1e-05"), json.Number("10000.0")
	}
	return c
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
