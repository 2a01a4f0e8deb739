package kernels

import (
	"errors"
	"testing"
)

// TestChoiceIsWhatRuns: for every name and level this CPU runs, Use(c)
// leaves the dispatch on c (level, exact, selective, the kernel set), and
// what c says of itself without being in use (Arithmetic, IntegerQuant,
// QuantArithmetic) is what the kernels in use say once it is. The name
// gives the same choice back.
func TestChoiceIsWhatRuns(t *testing.T) {
	defer Use(Current())
	choices := []string{"auto", "exact"}
	for _, l := range Levels() {
		if Supported(l) {
			choices = append(choices, l.String())
		}
	}
	for _, name := range choices {
		c, ok := ChoiceOf(name)
		if !ok || !c.Supported() {
			t.Fatalf("ChoiceOf(%q) = %v, %v", name, c, ok)
		}
		// Start from another choice so that nothing carries over.
		for _, from := range []string{"generic", "exact", "auto"} {
			f, _ := ChoiceOf(from)
			if err := Use(f); err != nil {
				t.Fatal(err)
			}
			if err := Use(c); err != nil {
				t.Fatalf("Use(%v): %v", c, err)
			}
			if got := Current(); got != c {
				t.Errorf("after %s, Use(%s): Current is %v", from, name, got)
			}
			if Active() != c.Level() || Exact() != c.Exact() || Selective() != c.Selective() || cur != c.kernelSet() {
				t.Errorf("after %s, Use(%s): level %v exact %v selective %v", from, name, Active(), Exact(), Selective())
			}
			if Arithmetic() != c.Arithmetic() {
				t.Errorf("Use(%s): kernels compute %q, the choice says %q", name, Arithmetic(), c.Arithmetic())
			}
			for _, q := range []Quant{Q8_0, Q4_0, Q4K, Q5K, Q6K} {
				if IntegerQuant(q) != c.IntegerQuant(q) || QuantArithmetic(q) != c.QuantArithmetic(q) {
					t.Errorf("Use(%s), %v: kernels %q, the choice %q", name, q, QuantArithmetic(q), c.QuantArithmetic(q))
				}
			}
		}
		if back, ok := ChoiceOf(c.Name()); !ok || back != c {
			t.Errorf("ChoiceOf(%q.Name() = %q) = %v", name, c.Name(), back)
		}
	}
}

// TestChoiceZeroKeepsKernels: the zero Choice names none; Use leaves the
// kernels as they are; an unsupported level is refused and changes nothing.
func TestChoiceZeroKeepsKernels(t *testing.T) {
	defer Use(Current())
	g, _ := ChoiceOf("generic")
	Use(g)
	if !(Choice{}).IsZero() || Use(Choice{}) != nil || Current() != g {
		t.Fatalf("Use(zero) moved the kernels to %v", Current())
	}
	bad := AtLevel(Level(99))
	var ue *UnsupportedError
	if err := Use(bad); !errors.As(err, &ue) || Current() != g {
		t.Errorf("Use(level 99) = %v, kernels now %v", err, Current())
	}
	if _, ok := ChoiceOf("sse9"); ok {
		t.Error("ChoiceOf accepted sse9")
	}
	if Default().IsZero() || !Default().Supported() {
		t.Errorf("Default() = %v", Default())
	}
}
