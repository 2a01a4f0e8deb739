package app

import (
	"strings"
	"testing"
)

// quantBackend is a Backend that says it holds quantised matrices, as an
// engine model of a GGUF file does.
type quantBackend struct{ Backend }

func (quantBackend) Arithmetic() string      { return "int8" }
func (quantBackend) QuantArithmetic() string { return "Q4_K, Q6_K: int8 activations per 32 (test)" }

// TestModelKernelLineNamesQuantArithmetic: the Model panel's kernel line
// says how a quantised file is multiplied, and is kernelLine otherwise.
func TestModelKernelLineNamesQuantArithmetic(t *testing.T) {
	if got := modelKernelLine(nil); got != kernelLine() {
		t.Errorf("no model: %q, want kernelLine %q", got, kernelLine())
	}
	got := modelKernelLine(quantBackend{})
	for _, want := range []string{"8 bits", "Q4_K, Q6_K: int8 activations per 32 (test)"} {
		if !strings.Contains(got, want) {
			t.Errorf("quantised model: %q lacks %q", got, want)
		}
	}
}

// selectiveBackend is a dense bf16 model under auto's selective
// arithmetic, with the parts that round activations named.
type selectiveBackend struct{ Backend }

func (selectiveBackend) Arithmetic() string      { return "bf16:experts" }
func (selectiveBackend) QuantArithmetic() string { return "" }

// TestModelKernelLineNamesParts: a bf16 file's kernel line says which
// parts auto rounds to bf16, not only the kernels' choice.
func TestModelKernelLineNamesParts(t *testing.T) {
	if got := modelKernelLine(selectiveBackend{}); !strings.Contains(got, "bf16 in experts, fp32 elsewhere") {
		t.Errorf("selective arithmetic: %q does not name the parts", got)
	}
}
