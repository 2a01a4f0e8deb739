package kernels

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestGeneratedAssembly checks that the generated kernels are what their
// generators write today: an edit to tools/quantasm that was not run
// again (or a hand edit of the .s) fails here. The same for tools/neonasm.
func TestGeneratedAssembly(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	for gen, file := range map[string]string{
		"../tools/quantasm/gen.py":      "quant_amd64.s",
		"../tools/quantasm/vnni.py":     "quant8_amd64.s",
		"../tools/quantasm/gemvrows.py": "gemvrows_amd64.s",
		"../tools/neonasm/gen.py gemv":  "gemv_arm64.s",
		"../tools/neonasm/gen.py quant": "quant8_arm64.s",
		"../tools/neonasm/gen.py norm":  "norm_arm64.s",
	} {
		argv := strings.Fields(gen)
		want, err := exec.Command(python, argv...).Output()
		if err != nil {
			t.Fatalf("%s: %v", gen, err)
		}
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(bytes.TrimRight(got, "\n"), bytes.TrimRight(want, "\n")) {
			t.Errorf("%s differs from what %s writes: run python3 %s > kernels/%s", file, gen, gen[3:], file)
		}
	}
}
