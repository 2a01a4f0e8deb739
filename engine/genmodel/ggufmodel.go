package genmodel

// A random-weight test model written as a GGUF file: the safetensors
// folder Write makes, converted by the production converter
// (loupe/engine/convert).

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"loupe/engine/convert"
)

// WriteGGUFModel writes a random-weight model of the named shape as one
// new GGUF file: the safetensors folder Write makes (bf16, or f32 for
// quant "f32"), in a temporary folder beside path, converted by WriteGGUF
// and removed.
func WriteGGUFModel(path, shape string, seed uint64, quant string) error {
	if !slices.Contains(convert.GGUFQuants, quant) {
		return fmt.Errorf("genmodel: unknown GGUF type %q (want one of %s)", quant, strings.Join(convert.GGUFQuants, ", "))
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("genmodel: %s: %w; refusing to overwrite", path, ErrExists)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(path), ".gen-model-*")
	if err != nil {
		return fmt.Errorf("genmodel: %w", err)
	}
	defer os.RemoveAll(tmp)
	dtype := "bf16"
	if quant == "f32" {
		dtype = "f32"
	}
	src := filepath.Join(tmp, shape) // its name is the file's general.name
	if err := Write(src, shape, seed, dtype); err != nil {
		return err
	}
	if err := checkMix(src, shape, quant); err != nil {
		return err
	}
	return convert.WriteGGUF(src, path, quant)
}

// ErrMixDoesNotFit: a shape whose matrices' rows do not fill the K-quant
// blocks q4_k_m and q5_k_m ask for.
var ErrMixDoesNotFit = errors.New("the shape's rows do not fill K-quant blocks")

// checkMix refuses a q4_k_m or q5_k_m file that would hold other types
// than the mix's K-quants (Q8_0 where rows are not a multiple of 256
// weights, as llama-quantize writes them): gen-model writes what it is
// asked or says why it cannot.
func checkMix(src, shape, quant string) error {
	_, fb, err := convert.GGUFPlan(src, quant)
	if err != nil || len(fb) == 0 {
		return err
	}
	return fmt.Errorf("genmodel: %w: %s as %s would write %d of its matrices as %s instead of %s (%s has rows of %d weights; K-quants need a multiple of 256): use --quant q8_0, or a shape whose rows fit (tiny-llama, or a full-size shape such as qwen2.5-1.5b)",
		ErrMixDoesNotFit, shape, quant, len(fb), fb[0].Got, fb[0].Want, fb[0].Tensor, fb[0].Cols)
}
