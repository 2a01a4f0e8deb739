package engine

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"loupe/engine/deltanet"
	"loupe/engine/safetensors"
	"loupe/kernels"
	"loupe/trace"
)

// qwen35Model writes ref as a safetensors file in dtype and loads it with
// the engine's own loader (prefix, shapes, 1 + w, conv transpose), without
// a tokenizer.
func qwen35Model(t *testing.T, cfg Config, ref refTensors, dtype string, threads int) *Model {
	t.Helper()
	var list []safetensors.Tensor
	for name, v := range ref.val {
		list = append(list, safetensors.Tensor{Name: name, DType: safetensors.DType(dtype), Shape: ref.shape[name], Data: encode(v, dtype)})
	}
	path := filepath.Join(t.TempDir(), "model.safetensors")
	if err := safetensors.Write(path, list, map[string]string{"format": "pt"}); err != nil {
		t.Fatal(err)
	}
	set, err := safetensors.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	w, err := loadWeights(set, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(cfg, w, threads)
	m.info = modelInfo(cfg, w, path, filepath.Dir(path), set.FileBytes())
	return m
}

// qwen35Tol bounds the logit error against the float64 reference relative
// to the row's largest |logit|: the engine sums in fp32 (and the chunked
// delta rule reorders the sums of the recurrence). Measured on the tiny
// model: below 2e-6. A plausible mistake (w for 1 + w, halves instead of
// per-head query|gate, all 16 dims rotated, reversed conv taps, no delta
// term) moves logits by more than 1e-2.
const qwen35Tol = 5e-5

func logitsErr(got []float32, want [][]float64, V int) float64 {
	worst := 0.0
	for pos, row := range want {
		worst = math.Max(worst, maxRelDiff(got[pos*V:(pos+1)*V], row))
	}
	return worst
}

// TestQwen35MatchesReference: a prompt of 150 tokens (three DeltaNet
// chunks, the last partial) at every kernel level, bf16 and f32 weights,
// under both tensor prefixes, against the float64 recurrent reference.
func TestQwen35MatchesReference(t *testing.T) {
	forEachLevel(t, func(t *testing.T, level kernels.Level) {
		cfg := tinyQwen35()
		tokens := randomTokens(150, cfg.VocabSize, 3)
		for _, prefix := range []string{"model.language_model.", "model."} {
			ref := randomQwen35(cfg, prefix, 7)
			want := ref35Forward(cfg, ref, prefix, tokens)
			for _, dtype := range []string{"BF16", "F32"} {
				t.Run(fmt.Sprintf("%s%s", prefix, dtype), func(t *testing.T) {
					m := qwen35Model(t, cfg, ref, dtype, 2)
					got, err := m.forward(context.Background(), tokens, 0, &probes{allLogits: true})
					if err != nil {
						t.Fatal(err)
					}
					tol := qwen35Tol
					if dtype == "BF16" && kernels.RoundsActivations(level) {
						tol = bf16InputTol
					}
					e := logitsErr(got, want.logits, cfg.VocabSize)
					t.Logf("max relative logit error over %d positions: %.2g", len(tokens), e)
					if e > tol {
						t.Errorf("logits differ from the float64 reference by %.3g (tolerance %.0g)", e, tol)
					}
				})
			}
		}
	})
}

// TestQwen35DecodeMatchesPrefill: the chunked prefill of a whole prompt and
// a token-by-token decode (the recurrent step, the KV cache growing) give
// the same logits at every position, and both match the reference; a
// prompt prefilled in two calls (split inside a chunk) too.
func TestQwen35DecodeMatchesPrefill(t *testing.T) {
	cfg := tinyQwen35()
	ref := randomQwen35(cfg, "model.language_model.", 13)
	tokens := randomTokens(100, cfg.VocabSize, 9)
	want := ref35Forward(cfg, ref, "model.language_model.", tokens)
	ctx, V := context.Background(), cfg.VocabSize
	batch := qwen35Model(t, cfg, ref, "BF16", 2)
	all, err := batch.forward(ctx, tokens, 0, &probes{allLogits: true})
	if err != nil {
		t.Fatal(err)
	}
	all = append([]float32(nil), all...)
	step := qwen35Model(t, cfg, ref, "BF16", 2)
	for pos, id := range tokens {
		got, err := step.forward(ctx, []int{id}, pos, nil)
		if err != nil {
			t.Fatal(err)
		}
		prefill := make([]float64, V)
		for i, v := range all[pos*V : (pos+1)*V] {
			prefill[i] = float64(v)
		}
		if d := maxRelDiff(got, prefill); d > qwen35Tol {
			t.Fatalf("position %d: decode logits differ from chunked prefill by %.3g", pos, d)
		}
		if d := maxRelDiff(got, want.logits[pos]); d > qwen35Tol {
			t.Fatalf("position %d: decode logits differ from the reference by %.3g", pos, d)
		}
	}
	split := qwen35Model(t, cfg, ref, "BF16", 3)
	if _, err := split.forward(ctx, tokens[:37], 0, nil); err != nil {
		t.Fatal(err)
	}
	got, err := split.forward(ctx, tokens[37:], 37, &probes{allLogits: true})
	if err != nil {
		t.Fatal(err)
	}
	if e := logitsErr(got, want.logits[37:], V); e > qwen35Tol {
		t.Fatalf("prefill in two calls (37 + 63 tokens) differs from the reference by %.3g", e)
	}
}

// TestQwen35StateResets: a new sequence (position 0) forgets the previous
// one's DeltaNet and conv state.
func TestQwen35StateResets(t *testing.T) {
	cfg := tinyQwen35()
	ref := randomQwen35(cfg, "model.", 17)
	a, b := randomTokens(80, cfg.VocabSize, 1), randomTokens(20, cfg.VocabSize, 2)
	ctx := context.Background()
	m := qwen35Model(t, cfg, ref, "BF16", 2)
	if _, err := m.forward(ctx, a, 0, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := m.forward(ctx, a[:1], len(a), nil); err != nil { // one decode step too
		t.Fatal(err)
	}
	got, err := m.forward(ctx, b, 0, &probes{allLogits: true})
	if err != nil {
		t.Fatal(err)
	}
	got = append([]float32(nil), got...)
	fresh, err := qwen35Model(t, cfg, ref, "BF16", 2).forward(ctx, b, 0, &probes{allLogits: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if got[i] != fresh[i] {
			t.Fatalf("logit %d of the second sequence: %v, a fresh model gives %v", i, got[i], fresh[i])
		}
	}
}

func TestQwen35ThreadsGiveIdenticalLogits(t *testing.T) {
	cfg := tinyQwen35()
	ref := randomQwen35(cfg, "model.", 19)
	tokens := randomTokens(90, cfg.VocabSize, 4)
	run := func(threads int) []float32 {
		out, err := qwen35Model(t, cfg, ref, "BF16", threads).forward(context.Background(), tokens, 0, &probes{allLogits: true})
		if err != nil {
			t.Fatal(err)
		}
		return append([]float32(nil), out...)
	}
	one, three := run(1), run(3)
	for i := range one {
		if one[i] != three[i] {
			t.Fatalf("logit %d: %v with 1 thread, %v with 3", i, one[i], three[i])
		}
	}
}

// TestQwen35Probes: α, β and the state norms the probes record match the
// reference's, attention is captured for the full-attention layers only
// (DeltaNet layers stay empty, not zeros), and ablating a DeltaNet layer
// is refused.
func TestQwen35Probes(t *testing.T) {
	cfg := tinyQwen35()
	ref := randomQwen35(cfg, "model.", 23)
	tokens := randomTokens(70, cfg.VocabSize, 6)
	want := ref35Forward(cfg, ref, "model.", tokens)
	m := qwen35Model(t, cfg, ref, "F32", 2)
	pr := &probes{deltaNet: m.newDeltaNetCaptures(), attn: map[int]*trace.Attention{}}
	last := len(tokens) - 1
	pr.attn[last] = m.newAttentionCapture(last)
	if _, err := m.forward(context.Background(), tokens, 0, pr); err != nil {
		t.Fatal(err)
	}
	caps := pr.deltaNetRun(cfg.NumHiddenLayers)
	if len(caps) != 2 || caps[0].Layer != 0 || caps[1].Layer != 2 {
		t.Fatalf("DeltaNet captures of layers %v, want 0 and 2", caps)
	}
	for _, c := range caps {
		if len(c.Alpha) != len(tokens) || len(c.StatePos) != 2 || c.StatePos[0] != 63 || c.StatePos[1] != last {
			t.Fatalf("layer %d: %d α rows, state norms at %v (want %d rows, norms at 63 and %d)", c.Layer, len(c.Alpha), c.StatePos, len(tokens), last)
		}
		for pos := range tokens {
			for j := range cfg.Qwen35.Linear.NV {
				if d := math.Abs(float64(c.Alpha[pos][j]) - want.alpha[c.Layer][pos][j]); d > 1e-5 {
					t.Fatalf("layer %d pos %d head %d: α %g, reference %g", c.Layer, pos, j, c.Alpha[pos][j], want.alpha[c.Layer][pos][j])
				}
				if d := math.Abs(float64(c.Beta[pos][j]) - want.beta[c.Layer][pos][j]); d > 1e-5 {
					t.Fatalf("layer %d pos %d head %d: β %g, reference %g", c.Layer, pos, j, c.Beta[pos][j], want.beta[c.Layer][pos][j])
				}
			}
		}
		for i, pos := range c.StatePos {
			for j, n := range c.StateNorm[i] {
				if w := want.stateNorm[c.Layer][pos][j]; math.Abs(float64(n)-w) > 1e-4*max(1, w) {
					t.Fatalf("layer %d pos %d head %d: state norm %g, reference %g", c.Layer, pos, j, n, w)
				}
			}
		}
	}
	a := pr.attn[last]
	for l := range cfg.NumHiddenLayers {
		if want.attn[l] == nil {
			if a.Weights[l] != nil {
				t.Fatalf("layer %d (DeltaNet) has attention weights", l)
			}
			continue
		}
		for h := range cfg.NumAttentionHeads {
			for k, p := range a.Weights[l][h] {
				if d := math.Abs(float64(p) - want.attn[l][h][last][k]); d > 1e-5 {
					t.Fatalf("layer %d head %d key %d: attention %g, reference %g", l, h, k, p, want.attn[l][h][last][k])
				}
			}
		}
	}
	err := m.checkOptions(GenerateOptions{Settings: trace.Settings{MaxTokens: 1}, Ablate: []trace.Head{{Layer: 0, Head: 1}}})
	if err == nil {
		t.Fatal("ablating a head of DeltaNet layer 0 was accepted")
	}
}

// TestQwen35SizesOf2B: parameter split, KV cache and state of the 2B
// config against docs/spec/qwen35.md §4–§6 (computed there from the shapes).
func TestQwen35SizesOf2B(t *testing.T) {
	cfg, err := ParseConfig([]byte(qwen35_2B))
	if err != nil {
		t.Fatal(err)
	}
	p := architectures[cfg.Architecture].params(cfg)
	h, V := int64(cfg.HiddenSize), int64(cfg.VocabSize)
	if total := V*h + p.attention + p.deltaNet + p.mlp + p.norm + h; total != 1_881_825_088 {
		t.Errorf("2B parameters %d, docs/spec/qwen35.md §6 says 1,881,825,088", total)
	}
	if per := (p.attention + p.deltaNet + p.mlp + p.norm) - 6*52_433_408 - 18*58_814_624; per != 0 {
		t.Errorf("layer parameters off by %d from 6 attention + 18 DeltaNet layers", per)
	}
	m := newModel(cfg, weights{}, 1)
	if m.kvLayers() != 6 {
		t.Errorf("KV cache over %d layers, want the 6 full-attention ones", m.kvLayers())
	}
	kv := 2 * int64(m.kvLayers()) * int64(cfg.NumKeyValueHeads*cfg.HeadDim) * 4
	if kv != 24_576 { // fp32; docs/spec/qwen35.md's 12,288 B is the bf16 figure
		t.Errorf("KV %d B per token, want 24,576 (fp32)", kv)
	}
	if s := newRecurrentState(&cfg).stateBytes(); s != 18_874_368+1_327_104 {
		t.Errorf("state %d B, want 18,874,368 + 1,327,104", s)
	}
	var _ = deltanet.ChunkSize
}

// Inspect on the hybrid: the DeltaNet layers' attention is absent (null),
// not rows of zeros; the attention layers' rows are the reference's; the
// KV rows of a DeltaNet layer are empty with a note saying why.
func TestQwen35Inspect(t *testing.T) {
	cfg := tinyQwen35()
	ref := randomQwen35(cfg, "model.", 29)
	tokens := randomTokens(12, cfg.VocabSize, 7)
	want := ref35Forward(cfg, ref, "model.", tokens)
	m := qwen35Model(t, cfg, ref, "F32", 2)
	attnLayer := slices.IndexFunc(want.attn, func(a [][][]float64) bool { return a != nil })
	pos := 9
	for _, kvLayer := range []int{0, attnLayer} {
		in, err := m.Inspect(context.Background(), tokens, pos, InspectOptions{Layer: kvLayer})
		if err != nil {
			t.Fatal(err)
		}
		for l, rows := range in.Attention.Weights {
			if want.attn[l] == nil {
				if rows != nil {
					t.Fatalf("layer %d (DeltaNet) has attention rows %v", l, rows)
				}
				continue
			}
			for h, row := range rows {
				for k, p := range row {
					if d := math.Abs(float64(p) - want.attn[l][h][pos][k]); d > 1e-5 {
						t.Fatalf("layer %d head %d key %d: attention %g, reference %g", l, h, k, p, want.attn[l][h][pos][k])
					}
				}
			}
		}
		kv := in.KV
		if delta := want.attn[kvLayer] == nil; delta != (kv.Note != "") || delta != (kv.Keys == nil) || !delta && len(kv.Keys) != pos+1 {
			t.Fatalf("KV rows of layer %d: %d keys, note %q", kvLayer, len(kv.Keys), kv.Note)
		}
	}
}
