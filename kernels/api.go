package kernels

import (
	"os"
	"strings"
)

// Level is a kernel implementation level.
type Level int

const (
	Generic    Level = iota // pure Go
	AVX2                    // AVX2 + FMA
	AVX512                  // AVX-512F (+VL)
	AVX512BF16              // AVX-512F + AVX512_BF16 (VDPBF16PS)
	NEON                    // arm64 Advanced SIMD (FMLA), every arm64 CPU
	NEONDot                 // NEON + FEAT_DotProd (SDOT): Apple M1 on, Cortex-A76 on
	NEONBF16                // NEONDot + FEAT_BF16 (BFMMLA, bf16 activations in prefill): Apple M2 on, Graviton 3
	NEONI8MM                // NEONBF16 + FEAT_I8MM (SMMLA for the int8 products of several tokens)
)

var levelNames = [...]string{"generic", "avx2", "avx512", "avx512bf16", "neon", "neondot", "neonbf16", "neoni8mm"}

func (l Level) String() string {
	if l < 0 || int(l) >= len(levelNames) {
		return "unknown"
	}
	return levelNames[l]
}

// Levels lists every level this package knows, slowest first within each
// architecture (x86-64, then arm64), whether or not the CPU supports it.
func Levels() []Level {
	return []Level{Generic, AVX2, AVX512, AVX512BF16, NEON, NEONDot, NEONBF16, NEONI8MM}
}

// ChoiceNames lists every name ChoiceOf reads ("auto, exact, generic,
// avx2, …"), for the messages that refuse another.
func ChoiceNames() string {
	names := []string{"auto", "exact"}
	for _, l := range Levels() {
		names = append(names, l.String())
	}
	return strings.Join(names, ", ")
}

// ParseLevel reads a level name; "auto" gives Best(), "exact" BestExact().
// Choose also sets the arithmetic that goes with the name.
func ParseLevel(s string) (Level, bool) {
	switch s {
	case "auto", "":
		return Best(), true
	case "exact":
		return BestExact(), true
	}
	for i, n := range levelNames {
		if n == s {
			return Level(i), true
		}
	}
	return 0, false
}

// kernelSet is one implementation of every dispatched family. Each entry
// receives the exported function's arguments after its length checks, so an
// implementation may assume well-formed shapes.
type kernelSet struct {
	matVecBF16 func(out []float32, w []BF16, x []float32)
	matVecF32  func(out, w, x []float32)
	matVecF16  func(out []float32, w []F16, x []float32) // nil: matVecF16Generic
	widenF16   func(dst []float32, src []F16)            // nil: widenF16Generic
	matMulBF16 func(ws *Workspace, out []float32, ldOut int, w []BF16, x []float32, n, cols int)
	// matMulBF16X is matMulBF16 with x already rounded to bf16 (xb, n × cols),
	// at the levels that multiply bf16 activations; nil at the others.
	matMulBF16X func(ws *Workspace, out []float32, ldOut int, w []BF16, x []float32, xb []BF16, n, cols int)
	matMulF32   func(out []float32, ldOut int, w, x []float32, n, cols int)
	matMulNN    func(out []float32, ldOut int, x []float32, ldx int, b []float32, ldb int, n, k, m int)
	dot         func(a, b []float32) float32
	axpy        func(y []float32, a float32, x []float32)
	add         func(y, x []float32)
	fmaPeak     func(iters int) int64
	// fp32Peak is fmaPeak's fp32 FMA loop where fmaPeak times another
	// instruction (VDPBF16PS at AVX512BF16); nil where fmaPeak is it.
	fp32Peak   func(iters int) int64
	rmsNorm    func(out, x, weight []float32, eps float32)
	softmax    func(x []float32)
	siluMul    func(out, gate, up []float32)
	matVecQ    func(q Quant, out []float32, w []byte, x []float32)
	dequantRow func(q Quant, dst []float32, src []byte)
	// widenQ4KBF16 widens a row of Q4_K blocks (len(dst) a multiple of
	// 256) to bf16 with the bits of dequantRow then roundRowsBF16; nil:
	// those two.
	widenQ4KBF16 func(dst []BF16, src []byte)
	quantizeX    func(a *QuantizedX, x []float32)
	matVecQ8     func(q Quant, out []float32, w []byte, a *QuantizedX)               // nil: no integer decode at this level
	matMulQ8     func(q Quant, out []float32, ldOut int, w []byte, xs []*QuantizedX) // nil: matVecQ8 token by token
	// matMulQ is MatMulQ after its checks (x is n × cols, cols a multiple
	// of the block); nil: qPanel rows widened, then matMulF32.
	matMulQ func(ws *Workspace, q Quant, out []float32, ldOut int, w []byte, x []float32, n, cols int)
	q8Name  string // the integer kernels' instructions, for QuantArithmetic
	// q8NameQ8_0 names Q8_0's integer decode where it differs from q8Name.
	q8NameQ8_0 string
	// q8Tiles multiply several tokens of K-quant or Q8_0 weights in integers
	// (MatMulQ8Rows); nil: prefill widens them (MatMulQ).
	q8Tiles *q8Tiles
}

// sets is the dispatch table; an entry is nil when this build has no code
// for the level (non-amd64, or the purego tag). cpuHas holds the CPU flags
// read once at start-up (cpu_amd64.go).
var (
	sets = [...]*kernelSet{Generic: &genericSet, AVX2: avx2Set, AVX512: avx512Set, AVX512BF16: avx512bf16Set,
		NEON: neonSet, NEONDot: neondotSet, NEONBF16: neonbf16Set, NEONI8MM: neoni8mmSet}
	cpuHas = [...]bool{Generic: true, AVX2: hasAVX2, AVX512: hasAVX512, AVX512BF16: hasAVX512BF16,
		NEON: hasNEON, NEONDot: hasNEONDot, NEONBF16: hasNEONBF16, NEONI8MM: hasNEONI8MM}
)

var (
	active = Generic
	cur    = &genericSet
)

// init honours LOUPE_KERNELS=auto|exact|avx512bf16|avx512|avx2|neoni8mm|
// neonbf16|neondot|neon|generic. A
// value that is unknown or unsupported silently falls back to auto: the CLI
// validates the variable itself and reports the problem to the user.
func init() {
	env := os.Getenv("LOUPE_KERNELS")
	exact = env == "exact"
	l := levelFromEnv(env)
	selective = !isLevelName(env) || !Supported(l)
	active, cur = l, setFor(l)
	defaultChoice = Current()
}

// FlagHelp is the help of every --kernels flag (the window's and each
// command's): the names Choose takes and what each arithmetic means.
const FlagHelp = "kernels: auto (the fastest, bf16 activations only in the parts of a model that keep the top-10 within 3e-3 of float64), exact (the fastest with every product in fp32), avx512bf16, avx512, avx2 (x86-64), neoni8mm, neonbf16, neondot, neon (arm64), generic; default LOUPE_KERNELS or auto"

// Choose applies a --kernels / LOUPE_KERNELS name: "auto" is Best() with
// the selective arithmetic (bf16 activations only where the caller's
// policy allows them, SetSelective(true)), "exact" is BestExact() with
// every product in fp32 (SetExact(true)), a level name is that level with
// its own arithmetic (at AVX512BF16: bf16 activations in every product).
// It reports false for an unknown name and an error for a level the CPU
// lacks.
func Choose(name string) (bool, error) {
	c, ok := ChoiceOf(name)
	if !ok {
		return false, nil
	}
	return true, Use(c)
}

// isLevelName reports whether s names a level ("avx2"), not "auto" or
// "exact".
func isLevelName(s string) bool {
	for _, n := range levelNames {
		if n == s {
			return true
		}
	}
	return false
}

// levelFromEnv maps the LOUPE_KERNELS value to the level to start with.
func levelFromEnv(s string) Level {
	l, ok := ParseLevel(s)
	if !ok || !Supported(l) {
		return Best()
	}
	return l
}

// Best reports the fastest level this CPU and OS support: the one "auto"
// means. Its arithmetic is the selective one (Selective): at AVX512BF16,
// whose prefill multiplies bf16 activations (VDPBF16PS: bf16 × bf16
// products summed in fp32, 1.4–1.5× faster than fp32 on Zen 5), only the
// products of the parts the engine's policy names round their activations
// (engine/arith.go: the MoE experts; each dense part alone moves the
// top-10 beyond the bound), the others stay fp32, so that the top-10
// probabilities stay within 3e-3 of a float64 forward on the test models
// of every architecture (engine/bf16parts_test.go). With every product
// rounding them (`--kernels avx512bf16`) they move by up to 1.9e-2. The
// exact arithmetic (BestExact, SetExact(true)) keeps every product in
// fp32: within 1e-5 of float64 on the same models.
//
// Splitting each activation into two bf16 parts, hi + lo, would keep the
// error within 1e-5 (8e-7 on the demo model, engine/bf16scheme_test.go)
// but takes two VDPBF16PS per pair of weights: 16 multiply-adds an
// instruction, as one fp32 FMA does, so it cannot keep the 1.4× that one
// bf16 buys on Zen 5. It is not built.
//
// Only one architecture's levels are ever supported, so the last supported
// level of Levels() is the fastest, unless it rounds activations where
// rounding buys no speed (roundingPays: AVX512BF16 on Intel's cores), in
// which case the level below it, whose products are fp32, is as fast or
// faster and more exact.
func Best() Level {
	for l := Level(len(levelNames) - 1); l > Generic; l-- {
		if Supported(l) && (!RoundsActivations(l) || roundingPays(l)) {
			return l
		}
	}
	return Generic
}

// BestExact reports the fastest level whose products are all fp32: the one
// "exact" means (every level but AVX512BF16, NEONBF16 and NEONI8MM).
func BestExact() Level {
	for l := Level(len(levelNames) - 1); l > Generic; l-- {
		if Supported(l) && !RoundsActivations(l) {
			return l
		}
	}
	return Generic
}

// RoundsActivations reports whether level l, under the fast arithmetic,
// rounds activations before a product (AVX512BF16, NEONBF16, NEONI8MM: to
// bf16 in prefill).
func RoundsActivations(l Level) bool { return l == AVX512BF16 || l == NEONBF16 || l == NEONI8MM }

// exactLevel is the level whose fp32 products stand in for l's under the
// exact arithmetic: the one below a level that rounds activations (its
// decode and every other family are the same code), l itself otherwise.
func exactLevel(l Level) Level {
	switch l {
	case AVX512BF16:
		return AVX512
	case NEONBF16, NEONI8MM:
		return NEONDot
	}
	return l
}

// exact holds the arithmetic choice: when true every product is an fp32
// one (no bf16- or int8-rounded activations at any level).
var exact bool

// SetExact chooses the arithmetic for later calls: true keeps every
// product in fp32 (quantised weights are widened to fp32, activations are
// never rounded); false lets a level round activations where it is faster
// and stays within its stated bound of float64. Like SetLevel, not safe to
// call while a kernel runs.
func SetExact(on bool) {
	exact = on
	cur = setFor(active) // after exact: setFor reads it
}

// Exact reports whether every product is kept in fp32.
func Exact() bool { return exact }

// selective holds auto's arithmetic choice: at a level that rounds
// activations, only the products the caller marks (MatMulBF16X) round
// them, the others run MatMulBF16Exact.
var selective bool

// SetSelective chooses, for a level that rounds activations, between its
// own arithmetic (false: every bf16 product rounds them) and auto's
// (true: the caller rounds only where its policy allows). SetLevel turns
// it off; Choose sets it. Not safe to call while a kernel runs.
func SetSelective(on bool) { selective = on }

// Selective reports whether the arithmetic in use is auto's selective one
// at a level that rounds activations: callers then round them only in the
// products their policy allows.
func Selective() bool { return selective && !exact && RoundsActivations(active) }

// Arithmetic names the products the kernels in use compute: "bf16" when
// prefill rounds every bf16 product's activations to bf16 (AVX512BF16 at
// its own arithmetic), "selective" when it rounds those of the products
// the caller's policy names (AVX512BF16 under auto), "fp32" otherwise.
// A model says which products (engine.Model.Arithmetic).
func Arithmetic() string {
	switch {
	case exact || !RoundsActivations(active):
		return "fp32"
	case selective:
		return "selective"
	}
	return "bf16"
}

// setFor is the kernel set that runs level l under the arithmetic chosen:
// with exact on, AVX512BF16 runs AVX512's fp32 products, NEONBF16 and
// NEONI8MM NEONDot's.
func setFor(l Level) *kernelSet {
	if exact {
		return sets[exactLevel(l)]
	}
	return sets[l]
}

// Supported reports whether this CPU can run level l.
func Supported(l Level) bool {
	return l >= 0 && int(l) < len(sets) && sets[l] != nil && cpuHas[l]
}

// Active reports the level in use.
func Active() Level { return active }

// SetLevel forces level l for all later calls, keeping the exact choice
// and turning auto's selective arithmetic off (Choose("auto") is that).
// It is one knob of three: a run switches with Use and a Choice, which
// sets all three at once. Not safe to call while a kernel runs: callers
// switch between generations.
func SetLevel(l Level) error {
	if !Supported(l) {
		return &UnsupportedError{l}
	}
	active, cur, selective = l, setFor(l), false
	return nil
}

// UnsupportedError says the CPU cannot run a level.
type UnsupportedError struct{ Level Level }

func (e *UnsupportedError) Error() string {
	return "kernels: this CPU does not support level " + e.Level.String()
}

// genericSet is the readable reference of every family, always compiled.
var genericSet = kernelSet{
	matVecBF16: matVecBF16Generic,
	matVecF32:  matVecF32Generic,
	matMulBF16: matMulBF16Generic,
	matMulF32:  matMulF32Generic,
	matMulNN:   matMulNNGeneric,
	dot:        dotGeneric,
	axpy:       axpyGeneric,
	add:        addGeneric,
	fmaPeak:    fmaPeakGeneric,
	rmsNorm:    rmsNormGeneric,
	softmax:    softmaxGeneric,
	siluMul:    siluMulGeneric,
	matVecQ:    matVecQGeneric,
	dequantRow: dequantRowGeneric,
	quantizeX:  quantizeXGeneric,
	matVecQ8:   matVecQ8Generic,
	q8Name:     "Go reference",
}
