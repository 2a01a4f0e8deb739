package perf

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"testing"
)

// TestGeneratedAssembly checks read_amd64.s against the generator that
// generate.go names, as kernels' test of the same name does for its files:
// a hand edit of the .s, or a generator edit not run again, fails here.
// Without python3 it fails under CI (CI=true) and says so on stderr
// elsewhere, not only in -v.
func TestGeneratedAssembly(t *testing.T) {
	src, err := os.ReadFile("generate.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^//go:generate sh -c "python3 (\S+\.py) > (read_amd64\.s)"$`).FindStringSubmatch(string(src))
	if m == nil {
		t.Fatal("generate.go has no //go:generate line for read_amd64.s")
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		msg := "TestGeneratedAssembly: python3 not installed, read_amd64.s is NOT checked"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		fmt.Fprintln(os.Stderr, msg)
		t.Skip(msg)
	}
	var stderr bytes.Buffer
	gen := exec.Command(python, m[1])
	gen.Stderr = &stderr
	want, err := gen.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", m[1], err, stderr.Bytes())
	}
	got, err := os.ReadFile(m[2])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bytes.TrimRight(got, "\n"), bytes.TrimRight(want, "\n")) {
		t.Errorf("%s differs from what %s writes: run make generate", m[2], m[1])
	}
}
