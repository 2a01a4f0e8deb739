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
	for l := Best() + 1; l <= NEONI8MM; l++ {
		if Supported(l) && (!RoundsActivations(l) || roundingPays(l)) {
			t.Errorf("Best is %v but %v is supported and worth its arithmetic", Best(), l)
		}
	}
	if !Supported(BestExact()) || RoundsActivations(BestExact()) {
		t.Errorf("BestExact is %v: unsupported or rounding activations", BestExact())
	}
	for l := BestExact() + 1; l <= NEONI8MM; l++ {
		if Supported(l) && !RoundsActivations(l) {
			t.Errorf("BestExact is %v but %v is supported and fp32", BestExact(), l)
		}
	}
	t.Logf("best level on this machine: %v; best exact: %v", Best(), BestExact())
}

// TestChooseSetsArithmetic: "exact" turns SetExact on at BestExact,
// "auto" turns it off and the selective arithmetic on, a level name turns
// both off; Arithmetic says bf16 only where every product rounds
// activations, selective where auto's policy decides.
func TestChooseSetsArithmetic(t *testing.T) {
	defer func(l Level, e, s bool) { SetLevel(l); SetExact(e); SetSelective(s) }(Active(), Exact(), selective)
	for _, c := range []struct {
		name             string
		level            Level
		exact, selective bool
	}{{"exact", BestExact(), true, false}, {"auto", Best(), false, true}, {"generic", Generic, false, false},
		{"exact", BestExact(), true, false}, {Best().String(), Best(), false, false}} {
		if ok, err := Choose(c.name); !ok || err != nil {
			t.Fatalf("Choose(%q) = %v, %v", c.name, ok, err)
		}
		sel := c.selective && RoundsActivations(c.level)
		if Active() != c.level || Exact() != c.exact || Selective() != sel {
			t.Errorf("Choose(%q): level %v exact %v selective %v, want %v %v %v", c.name, Active(), Exact(), Selective(), c.level, c.exact, sel)
		}
		want := "fp32"
		if !c.exact && RoundsActivations(c.level) {
			want = "bf16"
			if sel {
				want = "selective"
			}
		}
		if Arithmetic() != want {
			t.Errorf("Choose(%q): arithmetic %q, want %q", c.name, Arithmetic(), want)
		}
	}
	if ok, _ := Choose("sse9"); ok {
		t.Error("Choose accepted sse9")
	}
	if !Supported(AVX512BF16) {
		return
	}
	// Exact on at the bf16 level runs fp32 products: the set is AVX512's.
	Choose("avx512bf16")
	SetExact(true)
	if cur != sets[AVX512] || Arithmetic() != "fp32" || Selective() {
		t.Error("exact arithmetic at avx512bf16 still rounds activations")
	}
	SetExact(false)
	if cur != sets[AVX512BF16] || Arithmetic() != "bf16" {
		t.Error("fast arithmetic at avx512bf16 does not use its bf16 products")
	}
	// auto runs the same kernels where bf16 products pay (the caller
	// chooses per product), AVX512's fp32 ones where they do not.
	Choose("auto")
	if roundingPays(AVX512BF16) && (cur != sets[AVX512BF16] || !Selective()) {
		t.Error("auto at avx512bf16 is not selective")
	}
	if !roundingPays(AVX512BF16) && (cur != sets[AVX512] || Selective() || Arithmetic() != "fp32") {
		t.Error("auto rounds activations on a CPU where bf16 products are slower")
	}
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
	cases := map[string]Level{"": Best(), "auto": Best(), "exact": BestExact(), "generic": Generic, "nonsense": Best()}
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
	if Exact() != (env == "exact") {
		t.Fatalf("LOUPE_KERNELS=%s: exact arithmetic %v", env, Exact())
	}
}

func TestFMAPeakLoop(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		perIter := map[Level]int64{Generic: 16, AVX2: 192, AVX512: 384, AVX512BF16: 768, NEON: 128, NEONDot: 128, NEONBF16: 512, NEONI8MM: 512}[l]
		if got := FMAPeakLoop(1000); got != 1000*perIter {
			t.Fatalf("FMAPeakLoop(1000) = %d flops, want %d", got, 1000*perIter)
		}
		if FMAPeakLoop(0) != 0 {
			t.Fatal("FMAPeakLoop(0) did work")
		}
		// The fp32 loop: 2 operations per lane per FMA, 12 chains.
		fp32 := map[Level]int64{Generic: 16, AVX2: 192, AVX512: 384, AVX512BF16: 384, NEON: 128, NEONDot: 128, NEONBF16: 128, NEONI8MM: 128}[l]
		if got := FP32PeakLoop(1000); got != 1000*fp32 {
			t.Fatalf("FP32PeakLoop(1000) = %d flops, want %d", got, 1000*fp32)
		}
		if FP32PeakLoop(0) != 0 {
			t.Fatal("FP32PeakLoop(0) did work")
		}
		want := map[Level]string{AVX512BF16: "bf16 VDPBF16PS", NEONBF16: "bf16 BFMMLA", NEONI8MM: "bf16 BFMMLA"}[l]
		if want == "" {
			want = "fp32 FMA"
		}
		if got := PeakLoopName(); got != want {
			t.Fatalf("PeakLoopName() = %q, want %q", got, want)
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
