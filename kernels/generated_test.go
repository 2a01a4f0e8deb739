package kernels

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// generateLine matches generate.go's directives: generator (with its
// argument, if any), output file.
var generateLine = regexp.MustCompile(`(?m)^//go:generate sh -c "python3 (\S+\.py(?: \w+)?) > (\S+\.s)"$`)

// generators lists generate.go's generator → file pairs.
func generators(t *testing.T) [][2]string {
	src, err := os.ReadFile("generate.go")
	if err != nil {
		t.Fatal(err)
	}
	var pairs [][2]string
	for _, m := range generateLine.FindAllStringSubmatch(string(src), -1) {
		pairs = append(pairs, [2]string{m[1], m[2]})
	}
	if len(pairs) < 3 {
		t.Fatalf("generate.go names %d generators, want every tools/quantasm and tools/neonasm one", len(pairs))
	}
	return pairs
}

// TestGeneratedAssembly checks that the generated kernels are what their
// generators write today: an edit to tools/quantasm that was not run
// again (or a hand edit of the .s) fails here. Without python3 it fails
// under CI (CI=true) and says so on stderr elsewhere, not only in -v.
func TestGeneratedAssembly(t *testing.T) {
	pairs := generators(t)
	python, err := exec.LookPath("python3")
	if err != nil {
		msg := "TestGeneratedAssembly: python3 not installed, the generated assembly is NOT checked"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		fmt.Fprintln(os.Stderr, msg)
		t.Skip(msg)
	}
	for _, p := range pairs {
		gen, file := p[0], p[1]
		want, err := exec.Command(python, strings.Fields(gen)...).Output()
		if err != nil {
			t.Fatalf("%s: %v", gen, err)
		}
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(bytes.TrimRight(got, "\n"), bytes.TrimRight(want, "\n")) {
			t.Errorf("%s differs from what %s writes: run make generate", file, gen)
		}
	}
}
