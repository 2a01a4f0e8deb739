package engine

// What AVX512-BF16 prefill would cost in accuracy, measured without the
// instruction: VDPBF16PS multiplies bf16 pairs exactly and adds in fp32, so a
// scheme's error is the error of the activations it feeds the matrices.
// The float64 reference forward runs the trained demo model three ways —
// activations exact, rounded to one bf16 (what `--kernels avx512bf16` does
// today), and split into two bf16 parts hi + lo (hi = bf16(x), lo =
// bf16(x − hi): 16 significant bits, two VDPBF16PS per pair of weights) —
// and the top-10 probabilities of the last position are compared.

import (
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"loupe/kernels"
)

// bf16Round is x rounded to the nearest bf16 (through float32, as the
// kernel rounds its fp32 activations).
func bf16Round(x float64) float64 {
	return float64(kernels.FromFloat32(float32(x)).Float32())
}

// roundBF16Once is every activation rounded to one bf16.
func roundBF16Once(x []float64) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = bf16Round(v)
	}
	return y
}

// roundBF16Split is every activation as hi + lo, two bf16 parts.
func roundBF16Split(x []float64) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		v = float64(float32(v))
		hi := bf16Round(v)
		y[i] = hi + bf16Round(v-hi)
	}
	return y
}

// demoRefTensors reads assets/demo as float64 tensors.
func demoRefTensors(t *testing.T) (Config, refTensors) {
	dir := filepath.Join("..", "assets", "demo")
	b, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig(b)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, readRefTensors(t, dir)
}

// top10Shift is max |p_scheme − p_exact| over the exact run's ten most
// probable tokens.
func top10Shift(exact, scheme []float64) float64 {
	p, q := refSoftmax(exact), refSoftmax(scheme)
	ids := make([]int, len(p))
	for i := range ids {
		ids[i] = i
	}
	sort.Slice(ids, func(a, b int) bool { return p[ids[a]] > p[ids[b]] })
	d := 0.0
	for _, id := range ids[:10] {
		d = max(d, math.Abs(p[id]-q[id]))
	}
	return d
}

// TestBF16ActivationSchemes measures both schemes on prompts of the demo
// model and checks what the decision in kernels.Best rests on: one bf16
// moves the top-10 by far more than the 1e-5 the engine keeps, the split
// stays within it.
func TestBF16ActivationSchemes(t *testing.T) {
	if testing.Short() || kernels.Active() == kernels.Generic {
		t.Skip("float64 forward of the demo model; it uses no kernel, so the generic pass of make test skips it")
	}
	cfg, w := demoRefTensors(t)
	m, err := Load(filepath.Join("..", "assets", "demo"), LoadOptions{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	prompts := []string{
		"My cat is purple. But my friends tell me there is no such thing as a",
		"The wolf had grey fur. In the moonlight the hunters saw the",
		"To be, or not to be, that is the question: whether 'tis nobler in the mind to suffer",
	}
	var once, split float64
	for _, s := range prompts {
		ids := m.Encode(s)
		exact := refForward(cfg, w, ids, refOptions{lastOnly: true}).logits[len(ids)-1]
		o := refForward(cfg, w, ids, refOptions{lastOnly: true, roundIn: roundBF16Once}).logits[len(ids)-1]
		sp := refForward(cfg, w, ids, refOptions{lastOnly: true, roundIn: roundBF16Split}).logits[len(ids)-1]
		do, ds := top10Shift(exact, o), top10Shift(exact, sp)
		t.Logf("%d tokens: top-10 moved by %.2e (one bf16), %.2e (hi + lo)", len(ids), do, ds)
		once, split = max(once, do), max(split, ds)
	}
	t.Logf("largest: one bf16 %.2e, hi + lo %.2e", once, split)
	if once < 1e-5 {
		t.Errorf("one bf16 moved the top-10 by only %.2e: the emulation rounds nothing", once)
	}
	if split > 1e-5 || split > once/16 {
		t.Errorf("hi + lo moved the top-10 by %.2e (one bf16 %.2e): want ≤ 1e-5 and 16× less", split, once)
	}
}
