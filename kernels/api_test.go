package kernels

import (
	"errors"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestLevelNames(t *testing.T) {
	for _, l := range Levels() {
		got, ok := ParseLevel(l.String())
		if !ok || got != l {
			t.Errorf("ParseLevel(%q) = %v, %v", l.String(), got, ok)
		}
	}
	if l, ok := ParseLevel("auto"); !ok || l != Best() {
		t.Errorf("ParseLevel(auto) = %v, %v; Best is %v", l, ok, Best())
	}
	if _, ok := ParseLevel("sse9"); ok {
		t.Error("ParseLevel accepted sse9")
	}
	if Level(-1).String() != "unknown" || Level(99).String() != "unknown" {
		t.Error("out-of-range levels must print unknown")
	}
}

func TestBestIsSupported(t *testing.T) {
	if !Supported(Best()) || !Supported(Generic) {
		t.Fatalf("Best %v or generic unsupported", Best())
	}
	for l := Best() + 1; l <= AVX512; l++ {
		if Supported(l) {
			t.Errorf("Best is %v but %v is supported", Best(), l)
		}
	}
	t.Logf("best level on this machine: %v", Best())
}

func TestSetLevelUnsupported(t *testing.T) {
	err := SetLevel(Level(99))
	var ue *UnsupportedError
	if !errors.As(err, &ue) || ue.Level != 99 {
		t.Fatalf("SetLevel(99) = %v", err)
	}
	if !strings.Contains(err.Error(), "unknown") {
		t.Errorf("error %q does not name the level", err)
	}
}

func TestLevelFromEnv(t *testing.T) {
	cases := map[string]Level{"": Best(), "auto": Best(), "generic": Generic, "nonsense": Best()}
	for _, l := range Levels() {
		if Supported(l) {
			cases[l.String()] = l
		} else {
			cases[l.String()] = Best()
		}
	}
	for env, want := range cases {
		if got := levelFromEnv(env); got != want {
			t.Errorf("LOUPE_KERNELS=%q gives %v, want %v", env, got, want)
		}
	}
}

// TestEnvSelectsLevel runs under `LOUPE_KERNELS=generic go test`: the
// package must then have started on the generic path.
func TestEnvSelectsLevel(t *testing.T) {
	env := os.Getenv("LOUPE_KERNELS")
	if env == "" {
		t.Skip("LOUPE_KERNELS not set")
	}
	if want := levelFromEnv(env); Active() != want {
		t.Fatalf("LOUPE_KERNELS=%s: active %v, want %v", env, Active(), want)
	}
}

func TestFMAPeakLoop(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		perIter := map[Level]int64{Generic: 16, AVX2: 192, AVX512: 384, AVX512BF16: 768}[l]
		if got := FMAPeakLoop(1000); got != 1000*perIter {
			t.Fatalf("FMAPeakLoop(1000) = %d flops, want %d", got, 1000*perIter)
		}
		if FMAPeakLoop(0) != 0 {
			t.Fatal("FMAPeakLoop(0) did work")
		}
	})
}

// TestImports enforces the package boundary: stdlib and cpuid only.
func TestImports(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.Contains(strings.SplitN(p, "/", 2)[0], ".") && p != "github.com/klauspost/cpuid/v2" {
				t.Errorf("%s imports %s", f, p)
			}
			if strings.HasPrefix(p, "loupe/") {
				t.Errorf("%s imports our package %s", f, p)
			}
		}
	}
}
