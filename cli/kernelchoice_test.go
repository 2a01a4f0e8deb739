package cli

import (
	"encoding/json"
	"testing"

	"loupe/kernels"
)

// TestRunReportsItsKernels: `run --kernels NAME --json` computes with
// that choice and its kernels and arithmetic fields say so, whatever the
// kernels in use were before (generic).
func TestRunReportsItsKernels(t *testing.T) {
	dir := tinyDir(t)
	defer kernels.Use(kernels.Current())
	for _, name := range []string{"exact", "auto", "avx2"} {
		c, _ := kernels.ChoiceOf(name)
		if !c.Supported() {
			continue
		}
		g, _ := kernels.ChoiceOf("generic")
		kernels.Use(g)
		code, out, errs := runCLI("--model", dir, "--prompt", "The gold-bug", "--max-tokens", "2", "--kernels", name, "--json")
		if code != 0 {
			t.Fatalf("--kernels %s: exit %d: %s", name, code, errs)
		}
		var r runResult
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.Kernels != c.Level().String() || r.Arithmetic == "" {
			t.Errorf("--kernels %s: JSON says kernels %q arithmetic %q, want %q", name, r.Kernels, r.Arithmetic, c.Level())
		}
	}
}
