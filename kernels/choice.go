package kernels

// Choice is one arithmetic of the kernels as a value: a level and what its
// products do with activations (every product fp32; auto's selective
// rounding; the level's own). A run carries its Choice (the engine's
// GenerateOptions.Kernels), switches to it with Use and reports the one it
// ran with, so nothing set elsewhere (another run, a timing chapter, an
// experiment) changes what it computes. The three parts move together:
// there is no way to change one and keep a stale other.
//
// Build one with ChoiceOf (a --kernels name), AtLevel, or read Current or
// Default. The zero Choice names none: a run given it keeps the kernels in
// use.
type Choice struct {
	level     Level
	exact     bool // every product fp32 (SetExact)
	selective bool // auto's: only the products the caller's policy names round activations
	set       bool
}

// ChoiceOf reads a --kernels / LOUPE_KERNELS name as Choose does: "auto"
// (or "") is Best() with the selective arithmetic, "exact" BestExact()
// with every product in fp32, a level name that level with its own
// arithmetic. It reports false for an unknown name; whether this CPU runs
// the choice is Supported's question.
func ChoiceOf(name string) (Choice, bool) {
	l, ok := ParseLevel(name)
	if !ok {
		return Choice{}, false
	}
	return Choice{level: l, exact: name == "exact", selective: !isLevelName(name), set: true}, true
}

// AtLevel is level l with its own arithmetic (at AVX512BF16: bf16
// activations in every bf16 product), as `--kernels <level>` names it.
func AtLevel(l Level) Choice { return Choice{level: l, set: true} }

// Current is the choice the kernels run now.
func Current() Choice {
	return Choice{level: active, exact: exact, selective: selective, set: true}
}

// defaultChoice is the choice at start-up: LOUPE_KERNELS, else auto.
var defaultChoice Choice

// Default is the choice the process started with: LOUPE_KERNELS when it
// names one this CPU runs, else auto.
func Default() Choice { return defaultChoice }

// Use switches every later kernel call to c: level and arithmetic at
// once. The zero Choice changes nothing. Like SetLevel, not safe to call
// while a kernel runs: callers switch between runs.
func Use(c Choice) error {
	if !c.set {
		return nil
	}
	if !c.Supported() {
		return &UnsupportedError{c.level}
	}
	active, exact, selective = c.level, c.exact, c.selective
	cur = setFor(active)
	return nil
}

// IsZero reports whether c names no choice.
func (c Choice) IsZero() bool { return !c.set }

// Supported reports whether this CPU runs c.
func (c Choice) Supported() bool { return c.set && Supported(c.level) }

// Level is c's level (what `kernels` fields report: "avx512").
func (c Choice) Level() Level { return c.level }

// Exact reports whether c keeps every product in fp32.
func (c Choice) Exact() bool { return c.exact }

// Selective reports whether c is auto's selective arithmetic at a level
// that rounds activations: callers round them only in the products their
// policy allows.
func (c Choice) Selective() bool { return c.selective && !c.exact && RoundsActivations(c.level) }

// Name is the --kernels name that gives c back through ChoiceOf on this
// CPU: "auto", "exact" or the level's name ("" for the zero Choice).
func (c Choice) Name() string {
	switch {
	case !c.set:
		return ""
	case c.exact:
		return "exact"
	case c.selective:
		return "auto"
	}
	return c.level.String()
}

// String is Name, with the level where the name does not say it:
// "auto (avx512bf16)".
func (c Choice) String() string {
	n := c.Name()
	if n == "auto" || n == "exact" {
		return n + " (" + c.level.String() + ")"
	}
	return n
}

// Arithmetic names the products c computes, as Arithmetic does for the
// kernels in use: "bf16", "selective" or "fp32".
func (c Choice) Arithmetic() string {
	switch {
	case c.exact || !RoundsActivations(c.level):
		return "fp32"
	case c.selective:
		return "selective"
	}
	return "bf16"
}

// IntegerQuant is IntegerQuant under c: whether decode multiplies q
// weights by activations rounded to 8 bits.
func (c Choice) IntegerQuant(q Quant) bool {
	s := c.set && Supported(c.level)
	return s && !c.exact && c.kernelSet().matVecQ8 != nil && hasQ8Kernel(q)
}

// Q8Tiles is Q8Tiles under c.
func (c Choice) Q8Tiles(q Quant) bool {
	t := c.kernelSet().q8Tiles
	return c.IntegerQuant(q) && t != nil && t.has(q)
}

// QuantArithmetic is QuantArithmetic under c.
func (c Choice) QuantArithmetic(q Quant) string {
	switch {
	case !c.IntegerQuant(q):
		return "fp32 (weights widened, activations exact)"
	case c.Q8Tiles(q):
		s := c.kernelSet()
		name := s.q8NameOf(q)
		if s.q8Tiles.name == name {
			return "int8 activations per 32 in decode and prefill (" + name + ")"
		}
		return "int8 activations per 32 in decode (" + name + ") and prefill (" + s.q8Tiles.name + ")"
	}
	return "int8 activations per 32 in decode (" + c.kernelSet().q8NameOf(q) + ")"
}

// q8NameOf names the integer decode kernels of format q in s.
func (s *kernelSet) q8NameOf(q Quant) string {
	if q == Q8_0 && s.q8NameQ8_0 != "" {
		return s.q8NameQ8_0
	}
	return s.q8Name
}

// kernelSet is the set c runs (setFor at c's arithmetic).
func (c Choice) kernelSet() *kernelSet {
	if c.exact {
		return sets[exactLevel(c.level)]
	}
	return sets[c.level]
}
