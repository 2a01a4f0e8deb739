package kernels

import "os"

// Level is a kernel implementation level.
type Level int

const (
	Generic    Level = iota // pure Go
	AVX2                    // AVX2 + FMA
	AVX512                  // AVX-512F (+VL)
	AVX512BF16              // AVX-512F + AVX512_BF16 (VDPBF16PS)
)

var levelNames = [...]string{"generic", "avx2", "avx512", "avx512bf16"}

func (l Level) String() string {
	if l < 0 || int(l) >= len(levelNames) {
		return "unknown"
	}
	return levelNames[l]
}

// Levels lists every level this package knows, slowest first, whether or not
// the CPU supports it.
func Levels() []Level { return []Level{Generic, AVX2, AVX512, AVX512BF16} }

// ParseLevel reads a level name; "auto" gives Best().
func ParseLevel(s string) (Level, bool) {
	if s == "auto" || s == "" {
		return Best(), true
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
	matMulBF16 func(ws *Workspace, out []float32, ldOut int, w []BF16, x []float32, n, cols int)
	matMulF32  func(out []float32, ldOut int, w, x []float32, n, cols int)
	matMulNN   func(out []float32, ldOut int, x []float32, ldx int, b []float32, ldb int, n, k, m int)
	dot        func(a, b []float32) float32
	axpy       func(y []float32, a float32, x []float32)
	add        func(y, x []float32)
	fmaPeak    func(iters int) int64
	rmsNorm    func(out, x, weight []float32, eps float32)
	softmax    func(x []float32)
	siluMul    func(out, gate, up []float32)
	matVecQ    func(q Quant, out []float32, w []byte, x []float32)
	dequantRow func(q Quant, dst []float32, src []byte)
	quantizeX  func(a *QuantizedX, x []float32)
	matVecQ8   func(q Quant, out []float32, w []byte, a *QuantizedX) // nil: no integer decode at this level
	q8Name     string                                                // the integer kernels' instructions, for QuantArithmetic
}

// sets is the dispatch table; an entry is nil when this build has no code
// for the level (non-amd64, or the purego tag). cpuHas holds the CPU flags
// read once at start-up (cpu_amd64.go).
var (
	sets   = [...]*kernelSet{Generic: &genericSet, AVX2: avx2Set, AVX512: avx512Set, AVX512BF16: avx512bf16Set}
	cpuHas = [...]bool{Generic: true, AVX2: hasAVX2, AVX512: hasAVX512, AVX512BF16: hasAVX512BF16}
)

var (
	active = Generic
	cur    = &genericSet
)

// init honours LOUPE_KERNELS=auto|avx512bf16|avx512|avx2|generic. A value
// that is unknown or unsupported silently falls back to Best: the CLI
// validates the variable itself and reports the problem to the user.
func init() {
	l := levelFromEnv(os.Getenv("LOUPE_KERNELS"))
	active, cur = l, sets[l]
}

// levelFromEnv maps the LOUPE_KERNELS value to the level to start with.
func levelFromEnv(s string) Level {
	l, ok := ParseLevel(s)
	if !ok || !Supported(l) {
		return Best()
	}
	return l
}

// Best reports the fastest exact level this CPU and OS support: the one
// "auto" means. AVX512BF16 is left out on purpose: its prefill rounds the
// activations to bf16 (2× faster reading, but top-10 probabilities move by
// ~1e-3 against an fp32 reference on the demo model), so it runs only when
// asked for by name. Every other level keeps all arithmetic in fp32.
//
// Splitting each activation into two bf16 parts, hi + lo, would keep the
// error within 1e-5 (8e-7 on the demo model, engine/bf16scheme_test.go)
// but takes two VDPBF16PS per pair of weights: 16 multiply-adds an
// instruction, as one fp32 FMA does, so it cannot keep the 1.4× that one
// bf16 bought on Zen 5, and it reads the same weight bytes where prefill is
// memory-bound. It is not built: no CPU here has the instruction to time it.
func Best() Level {
	for l := AVX512; l > Generic; l-- {
		if Supported(l) {
			return l
		}
	}
	return Generic
}

// exact holds the arithmetic choice: when true every product is an fp32
// one (no bf16- or int8-rounded activations at any level).
var exact bool

// SetExact chooses the arithmetic for later calls: true keeps every
// product in fp32 (quantised weights are widened to fp32, activations are
// never rounded); false lets a level round activations where it is faster
// and stays within its stated bound of float64. Like SetLevel, not safe to
// call while a kernel runs.
func SetExact(on bool) { exact = on }

// Exact reports whether every product is kept in fp32.
func Exact() bool { return exact }

// BestExact reports the fastest level this CPU and OS support whose
// products all keep fp32 activations.
func BestExact() Level {
	for l := AVX512; l > Generic; l-- {
		if Supported(l) {
			return l
		}
	}
	return Generic
}

// Supported reports whether this CPU can run level l.
func Supported(l Level) bool {
	return l >= 0 && int(l) < len(sets) && sets[l] != nil && cpuHas[l]
}

// Active reports the level in use.
func Active() Level { return active }

// SetLevel forces level l for all later calls. Not safe to call while a
// kernel runs: callers switch between generations.
func SetLevel(l Level) error {
	if !Supported(l) {
		return &UnsupportedError{l}
	}
	active, cur = l, sets[l]
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
