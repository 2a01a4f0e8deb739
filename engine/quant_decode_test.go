package engine

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"loupe/kernels"
)

// The integer decode path (kernels.MatVecQ8: activations rounded to 8 bits
// per block of 32) against the fp32 path on the same quantised weights
// (kernels.Exact), for every architecture: how far the next-token
// probabilities of the top 10 move.

// quantScheme picks a matrix's format as llama.cpp's presets do: "q8_0"
// everything Q8_0; "q4_k_m" Q6_K for attn_v, ffn_down and the output head,
// Q4_K for the rest; "q5_k_m" likewise with Q5_K. A matrix whose columns do not fill K-quant blocks
// takes Q8_0, one that does not fill 32 stays f32.
type quantScheme string

func (s quantScheme) pick(w *mat, wide bool) (kernels.Quant, bool) {
	switch {
	case w.cols%32 != 0:
		return 0, false
	case s == "q8_0" || w.cols%256 != 0:
		return kernels.Q8_0, true
	case wide:
		return kernels.Q6K, true
	case s == "q5_k_m":
		return kernels.Q5K, true
	}
	return kernels.Q4K, true
}

// quantisedCopy returns m's weights with every matrix re-encoded by s
// (from the values it holds), as a new model of the same config.
func quantisedCopy(m *Model, s quantScheme) *Model {
	enc := func(w mat, wide bool) mat {
		q, ok := s.pick(&w, wide)
		if !ok || w.rows == 0 {
			return w
		}
		out := mat{rows: w.rows, cols: w.cols, qt: q, q: make([]byte, w.rows*q.RowBytes(w.cols)), exactIn: w.exactIn, part: w.part}
		row := make([]float32, w.cols)
		for r := range w.rows {
			w.row(row, r)
			kernels.QuantizeRow(q, out.q[r*q.RowBytes(w.cols):], row)
		}
		return out
	}
	w := m.w
	tied := w.output.bf != nil && &w.output.bf[0] == &w.embed.bf[0] || w.output.f != nil && &w.output.f[0] == &w.embed.f[0]
	w.output = enc(w.output, true)
	if tied {
		w.embed = w.output
	} else {
		w.embed = enc(w.embed, false)
	}
	w.layers = append([]layerWeights(nil), w.layers...)
	for i := range w.layers {
		lw := &w.layers[i]
		lw.wq, lw.wk, lw.wv = enc(lw.wq, false), enc(lw.wk, false), enc(lw.wv, true)
		lw.wo, lw.wGate, lw.wUp, lw.wDown = enc(lw.wo, false), enc(lw.wGate, false), enc(lw.wUp, false), enc(lw.wDown, true)
		if d := lw.linear; d != nil {
			c := *d
			c.wQKV, c.wZ, c.wB, c.wA, c.wOut = enc(c.wQKV, false), enc(c.wZ, false), enc(c.wB, false), enc(c.wA, false), enc(c.wOut, false)
			lw.linear = &c
		}
	}
	return newModel(m.cfg, w, 2)
}

func f64s(x []float32) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// topK returns the ids of the k largest entries of p, largest first.
func topK(p []float64, k int) []int {
	ids := make([]int, len(p))
	for i := range ids {
		ids[i] = i
	}
	sort.SliceStable(ids, func(a, b int) bool { return p[ids[a]] > p[ids[b]] })
	return ids[:k]
}

// shiftStats compares two runs' next-token distributions position by
// position: the largest and mean top10Shift (bf16scheme_test.go's
// measure: |Δp| over the first run's ten most probable tokens), the
// largest logit difference relative to the row's largest |logit|, and at
// how many positions the top 1 and the top-10 set agree.
type shiftStats struct {
	worst, mean, logit float64
	top1, set10, n     int
}

func (s *shiftStats) add(a, b []float32) {
	la, lb := f64s(a), f64s(b)
	shift := top10Shift(la, lb)
	s.worst, s.mean, s.n = math.Max(s.worst, shift), s.mean+shift, s.n+1
	s.logit = math.Max(s.logit, maxRelDiff(b, la))
	ta, tb := topK(refSoftmax(la), 10), topK(refSoftmax(lb), 10)
	if ta[0] == tb[0] {
		s.top1++
	}
	sort.Ints(ta)
	sort.Ints(tb)
	if fmt.Sprint(ta) == fmt.Sprint(tb) {
		s.set10++
	}
}

func (s shiftStats) String() string {
	return fmt.Sprintf("top-10 shift max %.2g, mean %.2g; logits %.2g; top 1 agrees at %d/%d, top-10 set at %d/%d",
		s.worst, s.mean/float64(s.n), s.logit, s.top1, s.n, s.set10, s.n)
}

// decodeShifts decodes tokens one at a time through three models: base
// (the unquantised weights), exact (quantised, kernels.Exact on: fp32
// products) and integer (the same quantised weights, Exact off). It
// returns what quantising the weights moves (base → exact) and what
// rounding the activations moves on top (exact → integer).
func decodeShifts(t *testing.T, base, exact, integer *Model, tokens []int) (weights, acts shiftStats) {
	t.Helper()
	prev := kernels.Exact()
	defer kernels.SetExact(prev)
	step := func(m *Model, id, pos int, ex bool) []float32 {
		kernels.SetExact(ex)
		got, err := m.forward(context.Background(), []int{id}, pos, nil)
		if err != nil {
			t.Fatal(err)
		}
		return append([]float32(nil), got...)
	}
	for pos, id := range tokens {
		f, e, i := step(base, id, pos, true), step(exact, id, pos, true), step(integer, id, pos, false)
		weights.add(f, e)
		acts.add(e, i)
	}
	return weights, acts
}

// quantShiftModels builds each architecture's test model with 256-column
// matrices (K-quant blocks), in f32.
func quantShiftModels() map[string]*Model {
	grow := func(c Config) Config {
		c.HiddenSize, c.IntermediateSize, c.HeadDim = 256, 512, 64
		c.NumAttentionHeads, c.NumKeyValueHeads = 4, 2
		c.VocabSize, c.EOSTokenIDs = 300, []int{299}
		return c
	}
	q2 := grow(tinyConfig())
	q3 := grow(tinyQwen3Config())
	ll := grow(llamaConfig())
	out := map[string]*Model{
		"qwen2": memModel(q2, quietTensors(randomTensors(q2, 61)), false, 2),
		"qwen3": memModel(q3, quietTensors(randomQwen3Tensors(q3, 62)), false, 2),
		"llama": memModel(ll, quietTensors(dropBiases(randomTensors(ll, 63))), false, 2),
	}
	return out
}

// top10ShiftBound is what the test allows the integer path to move the
// fp32 path's top-10 probabilities by, anywhere. On these random-weight
// models rounding the activations to 8 bits per 32 moves them by up to
// 0.05 (mean below 0.012), about what rounding the weights to Q8_0 moves
// (the same grid) and a fifth of Q4_K_M's weights (0.1-0.24, logged
// beside it); a wrong scale in a kernel moves them by several tenths. A
// shift of exactly 0 fails too: the integer path did not run.
const top10ShiftBound = 0.1

// TestIntegerDecodeTop10Shift measures, and prints, how much rounding the
// activations to 8 bits moves the next-token top 10 on every
// architecture, for Q8_0, Q4_K_M and Q5_K_M weights.
func TestIntegerDecodeTop10Shift(t *testing.T) {
	if !kernels.IntegerQuant(kernels.Q8_0) && !kernels.Exact() {
		t.Skipf("no integer kernels at level %v", kernels.Active())
	}
	models := quantShiftModels()
	models["qwen3.5"] = qwen35ShiftModel(t)
	tokens := randomTokens(40, 290, 71)
	for _, arch := range []string{"qwen2", "qwen3", "qwen3.5", "llama"} {
		for _, s := range []quantScheme{"q8_0", "q4_k_m", "q5_k_m"} {
			t.Run(arch+"/"+string(s), func(t *testing.T) {
				base := models[arch]
				exact, integer := quantisedCopy(base, s), quantisedCopy(base, s)
				wq, act := decodeShifts(t, base, exact, integer, tokens)
				t.Logf("%-7s %-6s int8 activations (%v) against fp32: %v", arch, s, kernels.Active(), act)
				t.Logf("%-7s %-6s for scale, quantising the weights:  %v", arch, s, wq)
				worst := act.worst
				if worst >= top10ShiftBound {
					t.Errorf("top-10 shift %.3g above %g", worst, top10ShiftBound)
				}
				if worst == 0 {
					t.Errorf("no shift at all: the integer path did not run")
				}
			})
		}
	}
}

// qwen35ShiftModel is tinyQwen35 at 256 columns (DeltaNet heads of 64).
func qwen35ShiftModel(t *testing.T) *Model {
	c := tinyQwen35()
	c.HiddenSize, c.IntermediateSize, c.HeadDim, c.RotaryDim = 256, 512, 64, 32
	c.VocabSize, c.EOSTokenIDs = 300, []int{299}
	q := *c.Qwen35
	q.Linear.DK, q.Linear.DV = 64, 64
	c.Qwen35 = &q
	ref := randomQwen35(c, "model.language_model.", 64)
	for _, v := range [][]float64{ref.val["model.language_model.embed_tokens.weight"]} {
		for i := range v {
			v[i] *= 0.125 // logits of std ≈ 2, as quietTensors gives the others
		}
	}
	return qwen35Model(t, c, ref, "F32", 2)
}

// TestQuantArithmeticNamesTheFormats: Model.QuantArithmetic lists a Q4_K_M model's
// formats with the integer kernels, fp32 under Exact, nothing for f32.
func TestQuantArithmeticNamesTheFormats(t *testing.T) {
	prev := kernels.Exact()
	defer kernels.SetExact(prev)
	base := quantShiftModels()["llama"]
	m := quantisedCopy(base, "q4_k_m")
	if got := base.QuantArithmetic(); got != "" {
		t.Errorf("f32 model: %q, want empty", got)
	}
	kernels.SetExact(true)
	if got, want := m.QuantArithmetic(), "Q4_K, Q6_K: "+kernels.QuantArithmetic(kernels.Q4K); got != want || !strings.Contains(got, "fp32") {
		t.Errorf("exact: %q, want %q", got, want)
	}
	kernels.SetExact(false)
	if got := m.QuantArithmetic(); kernels.IntegerQuant(kernels.Q4K) && !strings.Contains(got, "int8") {
		t.Errorf("integer: %q names no int8", got)
	}
	t.Logf("%s", m.QuantArithmetic())
}

// TestQuantPrefillTop10Shift measures, and prints, how much the prefill of
// a quantised model moves every position's top 10 against the fp32
// prefill (kernels.Exact) when its decode multiplies in integers: at a
// level with bf16 products the activations are rounded to bf16 and the
// widened weights too (kernels.MatMulQBF16), a finer rounding than
// decode's 8 bits, so decode's bound holds. At that level a shift of
// exactly 0 fails: the bf16 product did not run.
func TestQuantPrefillTop10Shift(t *testing.T) {
	defer func(l kernels.Level, e, s bool) { kernels.SetLevel(l); kernels.SetExact(e); kernels.SetSelective(s) }(
		kernels.Active(), kernels.Exact(), kernels.Selective())
	if _, err := kernels.Choose("auto"); err != nil || !kernels.IntegerQuant(kernels.Q8_0) {
		t.Skipf("no integer kernels at level %v", kernels.Active())
	}
	if kernels.Supported(kernels.AVX512BF16) { // auto's arithmetic where bf16 products pay
		kernels.SetLevel(kernels.AVX512BF16)
		kernels.SetExact(false)
		kernels.SetSelective(true)
	}
	forPrefillShifts(t, []quantScheme{"q8_0", "q4_k_m"}, func(t *testing.T, _ quantScheme, _ *Model, st shiftStats) {
		if kernels.RoundsActivations(kernels.Active()) && st.worst == 0 {
			t.Errorf("no shift at all: the bf16 prefill did not run")
		}
	})
}

// TestQuantPrefillInt8Shift: where the level has integer prefill tiles
// (Q4_K, Q5_K, Q6_K; Q8_0 with VPDPBUSD), a quantised model's prefill
// rounds its activations to 8 bits as decode does: every position's top
// 10 moves against the fp32 prefill (kernels.Exact) within decode's
// bound, by more than nothing (the tiles ran), and the model says
// "int8+prefill"; a Q8_0 model without tiles says "int8" and keeps an
// fp32 prefill.
func TestQuantPrefillInt8Shift(t *testing.T) {
	defer func(l kernels.Level, e, s bool) { kernels.SetLevel(l); kernels.SetExact(e); kernels.SetSelective(s) }(
		kernels.Active(), kernels.Exact(), kernels.Selective())
	if err := kernels.SetLevel(kernels.AVX2); err != nil || !kernels.Q8Tiles(kernels.Q4K) {
		t.Skip("no integer prefill tiles on this CPU")
	}
	kernels.SetExact(false)
	forPrefillShifts(t, []quantScheme{"q8_0", "q4_k_m", "q5_k_m"}, func(t *testing.T, s quantScheme, rounded *Model, st shiftStats) {
		tiled := s != "q8_0" || kernels.Q8Tiles(kernels.Q8_0)
		if want := map[bool]string{true: "int8+prefill", false: "int8"}[tiled]; rounded.Arithmetic() != want {
			t.Errorf("arithmetic %q, want %q", rounded.Arithmetic(), want)
		}
		if tiled == (st.worst == 0) {
			t.Errorf("top-10 shift %.3g: the prefill ran %s", st.worst, map[bool]string{true: "in fp32", false: "in integers"}[tiled])
		}
	})
}

// forPrefillShifts runs, for each architecture's shift model quantised by
// each of schemes, a prefill under kernels.Exact and one at the kernels in
// use, logs how far the second moves every position's top 10, fails it
// beyond decode's bound, and hands the shift to check.
func forPrefillShifts(t *testing.T, schemes []quantScheme, check func(t *testing.T, s quantScheme, rounded *Model, st shiftStats)) {
	models := quantShiftModels()
	models["qwen3.5"] = qwen35ShiftModel(t)
	tokens := randomTokens(40, 290, 71)
	for _, arch := range []string{"qwen2", "qwen3", "qwen3.5", "llama"} {
		for _, s := range schemes {
			t.Run(arch+"/"+string(s), func(t *testing.T) {
				base := models[arch]
				exact, rounded := quantisedCopy(base, s), quantisedCopy(base, s)
				kernels.SetExact(true)
				want := allLogits(t, exact, tokens)
				kernels.SetExact(false)
				got := allLogits(t, rounded, tokens)
				var st shiftStats
				V := base.cfg.VocabSize
				for p := range tokens {
					st.add(want[p*V:(p+1)*V], got[p*V:(p+1)*V])
				}
				t.Logf("%-7s %-6s prefill (%v, %s) against fp32: %v", arch, s, kernels.Active(), rounded.Arithmetic(), st)
				if st.worst >= top10ShiftBound {
					t.Errorf("top-10 shift %.3g above %g", st.worst, top10ShiftBound)
				}
				check(t, s, rounded, st)
			})
		}
	}
}
