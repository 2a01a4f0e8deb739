package engine

import (
	"strings"
	"testing"

	"loupe/engine/gguf"
)

// The supported-files message names every family a file registers and
// every GGUF tensor type the reader accepts, so a new one cannot be
// missing from it.
func TestSupportedFilesNamesEveryFamily(t *testing.T) {
	msg := SupportedFiles()
	for name := range architectures {
		if !strings.Contains(msg, `"`+name+`"`) {
			t.Errorf("message lacks architecture %q: %s", name, msg)
		}
	}
	for name := range ggufArchs {
		if !strings.Contains(msg, `"`+name+`"`) {
			t.Errorf("message lacks GGUF architecture %q", name)
		}
	}
	for id := range 64 {
		if ty := gguf.Type(id); ty.Supported() && !strings.Contains(msg, ty.String()) {
			t.Errorf("message lacks GGUF type %s", ty)
		}
	}
	// The families the window's old hard-coded message left out.
	for _, want := range []string{"Qwen3_5ForCausalLM", "Qwen3MoeForCausalLM", "OlmoeForCausalLM", "qwen35moe", "Q5_K"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %s", want)
		}
	}
}
