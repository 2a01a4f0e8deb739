package engine

// The bound "auto" rests on (kernels.Best, arith.go): AVX512BF16's prefill
// rounds the activations of every bf16 weight matrix to bf16, and "auto"
// takes it only in the parts of a model that keep the top-10
// probabilities within bf16Top10Bound of a float64 forward on the test
// models of every architecture. This test measures the shift of the full
// bf16 level through the engine's own kernels (not an emulation) and
// prints it per architecture beside the exact arithmetic's.

import (
	"context"
	"path/filepath"
	"testing"

	"loupe/kernels"
)

// bf16Top10Bound is the largest move of a top-10 probability, against the
// float64 reference, that the fast arithmetic may cause.
const bf16Top10Bound = 3e-3

// exactTop10Bound is the exact arithmetic's (every product fp32).
const exactTop10Bound = 1e-5

// boundCase is one architecture's test model: its reference logits (one
// row per position compared) and a function that runs the engine.
type boundCase struct {
	name string
	want [][]float64
	run  func(t *testing.T) [][]float32 // the same positions as want
}

// top10ShiftRows is the largest top10Shift over the positions.
func top10ShiftRows(want [][]float64, got [][]float32) float64 {
	worst := 0.0
	for p, row := range want {
		g := make([]float64, len(got[p]))
		for i, x := range got[p] {
			g[i] = float64(x)
		}
		worst = max(worst, top10Shift(row, g))
	}
	return worst
}

// lastLogitsOf runs each prompt as a generation's prefill does (from
// position 0, the output head on the last position only: a matrix ×
// vector product, fp32 at every level) and returns the last logits.
func lastLogitsOf(t *testing.T, m *Model, prompts [][]int) [][]float32 {
	var rows [][]float32
	for _, tok := range prompts {
		got, err := m.forward(context.Background(), tok, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, append([]float32(nil), got...))
	}
	return rows
}

// prefixes are the prompts tokens[:n] for n = from, from+step, … ≤ len,
// and the reference's logits at their last positions.
func prefixes(tokens []int, logits [][]float64, from, step int) (prompts [][]int, want [][]float64) {
	for n := from; n <= len(tokens); n += step {
		prompts, want = append(prompts, tokens[:n]), append(want, logits[n-1])
	}
	return prompts, want
}

// boundCases are the tiny random models of Qwen2, Qwen3, Qwen3.5 and
// Llama (bf16 weights; prompts of the first n tokens, n from 16, long
// enough for the bf16 tiles) and the trained demo model (Qwen2, three
// prompts): random logits are flat, the demo's are peaked as a real
// model's.
func boundCases(t *testing.T) []boundCase {
	var cases []boundCase
	q2 := tinyConfig()
	q2ref, q2tok := randomTensors(q2, 7), randomTokens(40, q2.VocabSize, 3)
	q2p, q2want := prefixes(q2tok, refForward(q2, q2ref, q2tok, refOptions{}).logits, 16, 3)
	cases = append(cases, boundCase{"qwen2", q2want,
		func(t *testing.T) [][]float32 { return lastLogitsOf(t, memModel(q2, q2ref, true, 2), q2p) }})
	q3 := tinyQwen3Config()
	q3ref, q3tok := randomQwen3Tensors(q3, 41), randomTokens(40, q3.VocabSize, 43)
	q3p, q3want := prefixes(q3tok, refForward(q3, q3ref, q3tok, refOptions{}).logits, 16, 3)
	cases = append(cases, boundCase{"qwen3", q3want,
		func(t *testing.T) [][]float32 { return lastLogitsOf(t, memModel(q3, q3ref, true, 2), q3p) }})
	q35 := tinyQwen35()
	const p35 = "model.language_model."
	q35ref, q35tok := randomQwen35(q35, p35, 7), randomTokens(150, q35.VocabSize, 3)
	q35p, q35want := prefixes(q35tok, ref35Forward(q35, q35ref, p35, q35tok).logits, 16, 7)
	cases = append(cases, boundCase{"qwen3.5", q35want,
		func(t *testing.T) [][]float32 { return lastLogitsOf(t, qwen35Model(t, q35, q35ref, "BF16", 2), q35p) }})
	ll := llamaConfig()
	llref, lltok := dropBiases(randomTensors(ll, 23)), randomTokens(30, ll.VocabSize, 4)
	llp, llwant := prefixes(lltok, refForward(ll, llref, lltok, refOptions{}).logits, 16, 2)
	cases = append(cases, boundCase{"llama", llwant,
		func(t *testing.T) [][]float32 { return lastLogitsOf(t, memModel(ll, llref, true, 2), llp) }})
	return append(cases, demoBoundCase(t))
}

// demoBoundCase is the trained demo model (bf16 safetensors) on three
// prompts, every position from the eighth: a trained model's predictions
// are peaked at some positions and spread at others, and the rounding
// moves the spread ones most.
func demoBoundCase(t *testing.T) boundCase {
	cfg, w := demoRefTensors(t)
	m, err := Load(filepath.Join("..", "assets", "demo"), LoadOptions{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	prompts := []string{
		"My cat is purple. But my friends tell me there is no such thing as a",
		"The wolf had grey fur. In the moonlight the hunters saw the",
		"To be, or not to be, that is the question: whether 'tis nobler in the mind to suffer",
	}
	c := boundCase{name: "qwen2 demo (trained)"}
	var ids [][]int
	for _, s := range prompts {
		tok := m.Encode(s)
		p, want := prefixes(tok, refForward(cfg, w, tok, refOptions{}).logits, 8, 1)
		ids, c.want = append(ids, p...), append(c.want, want...)
	}
	c.run = func(t *testing.T) [][]float32 { return lastLogitsOf(t, m, ids) }
	return c
}

// TestBF16ActivationsTop10Bound measures, per architecture, how far the
// fast arithmetic (AVX512BF16 prefill) and the exact one move the top-10
// probabilities from float64. The exact one must stay within
// exactTop10Bound; the fast one is over bf16Top10Bound on several, which
// is why "auto" rounds only some parts (TestBF16PartsTop10Bound). Without
// AVX512-BF16 there is no fast arithmetic to measure.
func TestBF16ActivationsTop10Bound(t *testing.T) {
	if testing.Short() || !kernels.Supported(kernels.AVX512BF16) {
		t.Skip("needs a CPU with AVX512-BF16 (the level whose arithmetic is bounded here)")
	}
	defer func(l kernels.Level, e, s bool) { kernels.SetLevel(l); kernels.SetExact(e); kernels.SetSelective(s) }(
		kernels.Active(), kernels.Exact(), kernels.Selective())
	worst := 0.0
	for _, c := range boundCases(t) {
		t.Run(c.name, func(t *testing.T) {
			if _, err := kernels.Choose("avx512bf16"); err != nil {
				t.Fatal(err)
			}
			fast := top10ShiftRows(c.want, c.run(t))
			if _, err := kernels.Choose("exact"); err != nil {
				t.Fatal(err)
			}
			exact := top10ShiftRows(c.want, c.run(t))
			t.Logf("%-22s top-10 moved by %.2e with bf16 activations (bound %.0e), %.2e exact (bound %.0e), %d prompts",
				c.name, fast, bf16Top10Bound, exact, exactTop10Bound, len(c.want))
			worst = max(worst, fast)
			if exact > exactTop10Bound {
				t.Errorf("the exact arithmetic moves the top-10 by %.3g > %.0g", exact, exactTop10Bound)
			}
		})
	}
	t.Logf("bf16 activations in every product: largest top-10 shift %.2e (bound %.0e)", worst, bf16Top10Bound)
}

// TestModelArithmetic: a run says bf16 only where prefill rounds the
// activations of bf16 matrices (not with f32 weights, not under exact),
// and under auto names the parts that round them.
func TestModelArithmetic(t *testing.T) {
	if !kernels.Supported(kernels.AVX512BF16) {
		t.Skip("needs AVX512-BF16")
	}
	defer func(l kernels.Level, e, s bool) { kernels.SetLevel(l); kernels.SetExact(e); kernels.SetSelective(s) }(
		kernels.Active(), kernels.Exact(), kernels.Selective())
	cfg := tinyConfig()
	ref := randomTensors(cfg, 7)
	bf, f32 := memModel(cfg, ref, true, 1), memModel(cfg, ref, false, 1)
	moe := tinyOlmoe() // every layer sparse
	mm := qwen35Model(t, moe, randomMoE(moe, moeSeed), "BF16", 1)
	kernels.Choose("avx512bf16")
	if a, b, c := bf.Arithmetic(), f32.Arithmetic(), mm.Arithmetic(); a != "bf16" || b != "fp32" || c != "bf16" {
		t.Errorf("avx512bf16: bf16 weights %q, f32 weights %q, MoE %q", a, b, c)
	}
	kernels.Choose("exact")
	if a, c := bf.Arithmetic(), mm.Arithmetic(); a != "fp32" || c != "fp32" {
		t.Errorf("exact: bf16 weights %q, MoE %q", a, c)
	}
	kernels.SetLevel(kernels.AVX512BF16) // auto's arithmetic where bf16 products pay
	kernels.SetExact(false)
	kernels.SetSelective(true)
	defer func(p partSet) { bf16Parts = p }(bf16Parts)
	for _, c := range []struct {
		parts     partSet
		dense, mo string
	}{{partsOf(partExperts), "fp32", "bf16:experts"}, {mlpParts, "bf16:gate,up,down", "fp32"},
		{partsOf(partQ, partExperts), "bf16:q", "bf16:q,experts"}} {
		bf16Parts = c.parts
		if a, b := bf.Arithmetic(), mm.Arithmetic(); a != c.dense || b != c.mo {
			t.Errorf("auto rounding %s: dense %q, MoE %q; want %q, %q", c.parts, a, b, c.dense, c.mo)
		}
	}
}
