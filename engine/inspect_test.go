package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"loupe/kernels"
	"loupe/trace"
)

// inspectTol bounds |engine − reference| of the inspected values, relative
// to the largest |value| of the row compared (at least 1), and absolute
// for probabilities. The tiny models measure about 1e-6.
const inspectTol = 2e-5

// TestInspectMatchesReference checks, at every kernel level, that the
// embedding row, the attention of the query, the logit lens after every
// layer, the MLP of every layer and the cached keys and values of every
// layer and KV head match the float64 reference forward, both on a fresh
// model (prefill of the tokens before pos) and reusing the cache.
func TestInspectMatchesReference(t *testing.T) {
	forEachLevel(t, func(t *testing.T, level kernels.Level) {
		shapes := testShapes()
		shapes["qwen3"] = tinyQwen3Config()
		shapes["llama"] = llamaConfig()
		for name, cfg := range shapes {
			for _, bf16 := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/bf16=%v", name, bf16), func(t *testing.T) {
					tol := inspectTol
					if bf16 && kernels.RoundsActivations(level) {
						tol = bf16InputTol
					}
					ref := randomTensors(cfg, 21)
					switch cfg.ModelType {
					case "qwen3":
						ref = randomQwen3Tensors(cfg, 21)
					case "llama":
						ref = dropBiases(ref)
					}
					tokens := randomTokens(40, cfg.VocabSize, 8)
					want := refForward(cfg, ref, tokens, refOptions{})
					m := memModel(cfg, ref, bf16, 2)
					for _, pos := range []int{39, 17, 0, 39} { // 39 first: a prefill; then from the cache
						checkInspect(t, m, cfg, ref, want, tokens, pos, tol)
					}
				})
			}
		}
	})
}

func checkInspect(t *testing.T, m *Model, cfg Config, ref refTensors, want refRun, tokens []int, pos int, tol float64) {
	t.Helper()
	L, H, KV, d, h := cfg.NumHiddenLayers, cfg.NumAttentionHeads, cfg.NumKeyValueHeads, cfg.HeadDim, cfg.HiddenSize
	in, err := m.Inspect(context.Background(), tokens, pos, InspectOptions{Layer: L - 1, KVHead: KV - 1})
	if err != nil {
		t.Fatal(err)
	}
	id := tokens[pos]
	if in.Pos != pos || in.Token.ID != id || in.EmbeddingRows != cfg.VocabSize || in.Tied != cfg.TieWordEmbeddings {
		t.Fatalf("pos %d: %+v", pos, in.Token)
	}
	// Embedding: the token's row, exactly (bf16 values widen exactly).
	row := ref.val["model.embed_tokens.weight"][id*h : (id+1)*h]
	if d := maxRelDiff(in.Embedding, row); d != 0 {
		t.Errorf("pos %d: embedding row differs by %.3g", pos, d)
	}
	// Attention of query pos, every layer and head.
	if len(in.Attention.Weights) != L || in.Attention.QueryPos != pos {
		t.Fatalf("pos %d: attention of %d layers for query %d", pos, len(in.Attention.Weights), in.Attention.QueryPos)
	}
	for l := range L {
		for qh := range H {
			if got := in.Attention.Weights[l][qh]; len(got) != pos+1 || maxAbsDiff(got, want.attn[l][qh][pos]) > tol {
				t.Fatalf("pos %d layer %d head %d: attention %v, reference %v", pos, l, qh, got, want.attn[l][qh][pos])
			}
		}
	}
	// Logit lens: each layer's top-5 with the reference's probabilities.
	lens := refLens(cfg, ref, want, pos)
	if len(in.Lens) != L {
		t.Fatalf("pos %d: logit lens of %d layers", pos, len(in.Lens))
	}
	for l, ll := range in.Lens {
		checkTop(t, fmt.Sprintf("pos %d layer %d", pos, l), ll.Top, lens[l], 5, tol)
	}
	// The last layer's lens is the model's own next-token distribution.
	final := softmax64(want.logits[pos])
	checkTop(t, fmt.Sprintf("pos %d final", pos), in.Lens[L-1].Top, final, 5, tol)
	// MLP of every layer at pos.
	for l, mlp := range in.MLP {
		if mlp.Layer != l || mlp.Pos != pos || maxRelDiff(mlp.Values, want.mlp[l][pos]) > tol {
			t.Fatalf("pos %d layer %d: MLP differs by %.3g", pos, l, maxRelDiff(mlp.Values, want.mlp[l][pos]))
		}
	}
	// Keys (after RoPE) and values of every layer and KV head, 0…pos.
	if in.KV.Layer != L-1 || in.KV.KVHead != KV-1 || len(in.KV.Keys) != pos+1 {
		t.Fatalf("pos %d: kv of layer %d head %d, %d rows", pos, in.KV.Layer, in.KV.KVHead, len(in.KV.Keys))
	}
	for l := range L {
		for g := range KV {
			kv := m.KVRows(l, g, pos+1)
			if l == L-1 && g == KV-1 && !slices.EqualFunc(kv.Keys, in.KV.Keys, slices.Equal) {
				t.Fatalf("pos %d: Inspect's kv differs from KVRows", pos)
			}
			for p := range pos + 1 {
				if dk := maxRelDiff(kv.Keys[p], want.keys[l][p][g*d:(g+1)*d]); dk > tol {
					t.Fatalf("pos %d layer %d kv head %d position %d: keys differ by %.3g", pos, l, g, p, dk)
				}
				if dv := maxRelDiff(kv.Values[p], want.vals[l][p][g*d:(g+1)*d]); dv > tol {
					t.Fatalf("pos %d layer %d kv head %d position %d: values differ by %.3g", pos, l, g, p, dv)
				}
			}
		}
	}
}

// checkTop checks that top holds the n most probable ids of the reference
// distribution p (ties within tol may swap) with their probabilities.
func checkTop(t *testing.T, what string, top []trace.Candidate, p []float64, n int, tol float64) {
	t.Helper()
	if len(top) != n {
		t.Fatalf("%s: %d candidates, want %d", what, len(top), n)
	}
	for i, c := range top {
		if d := math.Abs(c.P - p[c.ID]); d > tol {
			t.Fatalf("%s: candidate %d (id %d) p %.6f, reference %.6f", what, i, c.ID, c.P, p[c.ID])
		}
		if i > 0 && c.P > top[i-1].P {
			t.Fatalf("%s: candidates not by p descending: %+v", what, top)
		}
	}
	last := top[n-1].P
	for id, q := range p {
		if q > last+tol && !slices.ContainsFunc(top, func(c trace.Candidate) bool { return c.ID == id }) {
			t.Fatalf("%s: id %d (p %.6f) missing from the top %d %+v", what, id, q, n, top)
		}
	}
}

func softmax64(z []float64) []float64 { return refSoftmax(z) }

func maxAbsDiff(got []float32, want []float64) float64 {
	worst := 0.0
	for i, v := range want {
		worst = math.Max(worst, math.Abs(float64(got[i])-v))
	}
	return worst
}

// After Generate, Inspect reuses the run's cache (one decode step) and
// leaves it as the run left it; its results equal those of a fresh model.
func TestInspectAfterGenerate(t *testing.T) {
	m, ref, cfg := genModel(t)
	run, err := m.Generate(context.Background(), "Once upon a time", greedy(5), nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int, len(run.Tokens))
	for i, tk := range run.Tokens {
		ids[i] = tk.ID
	}
	if got := m.CachedTokens(); got != len(ids)-1 {
		t.Fatalf("cache holds %d tokens after the run, want %d (the last one is never read)", got, len(ids)-1)
	}
	before := m.KVRows(1, 0, len(ids)-1)
	want := refForward(cfg, ref, ids, refOptions{})
	for _, pos := range []int{2, len(ids) - 2, len(ids) - 1} {
		checkInspect(t, m, cfg, ref, want, ids, pos, inspectTol)
		after := m.KVRows(1, 0, len(ids)-1)
		if !slices.EqualFunc(before.Keys, after.Keys, slices.Equal) || !slices.EqualFunc(before.Values, after.Values, slices.Equal) {
			t.Fatalf("Inspect at %d changed the run's cached keys or values", pos)
		}
	}
	if got := m.CachedTokens(); got != len(ids) {
		t.Errorf("cache holds %d tokens after inspecting the last one, want %d", got, len(ids))
	}
}

// The attention of any position of a long prompt (1,100 tokens, past the
// old 512-token limit of AllPrompt) is recomputed on demand.
func TestInspectLongPrompt(t *testing.T) {
	if testing.Short() {
		t.Skip("long prompt")
	}
	cfg := tinyConfig()
	cfg.MaxPositionEmbeddings = 2048
	ref := randomTensors(cfg, 5)
	tokens := randomTokens(1100, cfg.VocabSize, 4)
	want := refForward(cfg, ref, tokens, refOptions{lastOnly: true})
	m := memModel(cfg, ref, true, 2)
	for _, pos := range []int{1099, 700, 3} {
		in, err := m.Inspect(context.Background(), tokens, pos, InspectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for l := range cfg.NumHiddenLayers {
			for qh := range cfg.NumAttentionHeads {
				if d := maxAbsDiff(in.Attention.Weights[l][qh], want.attn[l][qh][pos]); d > inspectTol {
					t.Fatalf("pos %d layer %d head %d: attention differs by %.3g", pos, l, qh, d)
				}
			}
		}
	}
}

func TestInspectRefusesBadArguments(t *testing.T) {
	cfg := tinyConfig()
	m := memModel(cfg, randomTensors(cfg, 1), true, 1)
	ids := randomTokens(5, cfg.VocabSize, 1)
	for name, c := range map[string]struct {
		ids []int
		pos int
		opt InspectOptions
	}{
		"pos past the end": {ids, 5, InspectOptions{}},
		"negative pos":     {ids, -1, InspectOptions{}},
		"layer":            {ids, 2, InspectOptions{Layer: cfg.NumHiddenLayers}},
		"negative layer":   {ids, 2, InspectOptions{Layer: -1}},
		"kv head":          {ids, 2, InspectOptions{KVHead: cfg.NumKeyValueHeads}},
		"token id":         {[]int{1, cfg.VocabSize}, 1, InspectOptions{}},
		"no tokens":        {nil, 0, InspectOptions{}},
	} {
		if _, err := m.Inspect(context.Background(), c.ids, c.pos, c.opt); !errors.Is(err, ErrSettings) {
			t.Errorf("%s: error %v, want ErrSettings", name, err)
		}
	}
}

// With Stages set every step carries the sampler's stages: the drawn token
// is the chosen one and the last stage is the distribution of the top-N.
func TestGenerateRecordsSamplerStages(t *testing.T) {
	m, _, _ := genModel(t)
	opt := greedy(4)
	opt.Settings.Temperature, opt.Settings.TopK, opt.Settings.TopP, opt.Settings.Seed = 0.8, 20, 0.9, 3
	opt.Stages = 12
	run, err := m.Generate(context.Background(), "Once upon a time", opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range run.Steps {
		st := s.Stages
		if st == nil || st.Greedy || st.Drawn != s.Chosen.ID || len(st.Stages) != 5 || len(st.Candidates) != 12 {
			t.Fatalf("step %d: stages %+v", i, st)
		}
		for _, c := range st.Candidates {
			for _, top := range s.Top {
				if top.ID == c.ID && math.Abs(top.P-c.P) > 1e-9 {
					t.Fatalf("step %d: candidate %d p %v, top-10 says %v", i, c.ID, c.P, top.P)
				}
			}
		}
		if st.Stages[2].Name != "top-k" || st.Stages[2].Kept < 20 || st.Stages[3].Kept > st.Stages[2].Kept {
			t.Fatalf("step %d: kept %+v", i, st.Stages)
		}
	}
	g, err := m.Generate(context.Background(), "Once upon a time", greedy(2), nil)
	if err != nil || g.Steps[0].Stages != nil {
		t.Fatalf("stages recorded without asking: %v", err)
	}
}
