package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"

	"loupe/kernels"
	"loupe/trace"
)

// logitTol bounds |engine − reference| per logit, relative to the largest
// |logit| of the row (at least 1). The engine sums in fp32 with bf16-exact
// weights; the reference in float64 on the same values; the measured
// worst case on the tiny models is below 1e-6.
const logitTol = 2e-5

// bf16InputTol is the tolerance of bf16 weights at the AVX512_BF16 level.
// Its matrix × matrix kernel (prefill) rounds the activations to bf16
// (VDPBF16PS multiplies bf16 by bf16) for full 4-row × 6-token tiles and
// 32-column blocks, and is exact elsewhere, so no single reference models
// it; each input moves by ≤ 2⁻⁹ of itself and the effect compounds over
// the layers. Measured on the tiny models: 2.0e-2 to 3.5e-2 (Qwen3.5:
// 2.7e-2 with its DeltaNet's in_proj_qkv in fp32, 0.11 without). A wrong
// forward pass (interleaved RoPE, wrong scale) is off by O(1).
const bf16InputTol = 5e-2

// TestMain runs the package's tests at the fastest kernel level whose
// products use fp32 activations (not AVX512_BF16, which rounds prefill's
// activations to bf16), so the fp32 tolerances hold; TestKernelLevels
// covers every level, each with its own arithmetic (kernels.SetLevel:
// AVX512_BF16 rounds every bf16 product's activations; auto's selective
// arithmetic is TestBF16PartsTop10Bound's).
func TestMain(m *testing.M) {
	if err := kernels.SetLevel(kernels.BestExact()); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// forEachLevel runs f at every kernel level this CPU supports.
func forEachLevel(t *testing.T, f func(t *testing.T, l kernels.Level)) {
	defer func(l kernels.Level) { kernels.SetLevel(l) }(kernels.Active())
	for _, l := range kernels.Levels() {
		if !kernels.Supported(l) {
			continue
		}
		if err := kernels.SetLevel(l); err != nil {
			t.Fatal(err)
		}
		t.Run(l.String(), func(t *testing.T) { f(t, l) })
	}
}

// memModel builds an engine model from reference tensors, with matrices in
// bf16 (the checkpoint dtype) or f32.
func memModel(cfg Config, r refTensors, bf16 bool, threads int) *Model {
	f32 := func(name string) []float32 {
		v := r.val[name]
		out := make([]float32, len(v))
		for i, x := range v {
			out[i] = float32(x)
		}
		return out
	}
	m := func(name string) mat {
		s := r.shape[name]
		w := mat{rows: s[0], cols: s[1]}
		if bf16 {
			for _, x := range r.val[name] {
				w.bf = append(w.bf, kernels.FromFloat32(float32(x)))
			}
		} else {
			w.f = f32(name)
		}
		return w
	}
	var w weights
	w.embed = m("model.embed_tokens.weight")
	for i := range cfg.NumHiddenLayers {
		p := fmt.Sprintf("model.layers.%d.", i)
		w.layers = append(w.layers, layerWeights{
			attnNorm: f32(p + "input_layernorm.weight"),
			wq:       m(p + "self_attn.q_proj.weight"), bq: f32(p + "self_attn.q_proj.bias"),
			wk: m(p + "self_attn.k_proj.weight"), bk: f32(p + "self_attn.k_proj.bias"),
			wv: m(p + "self_attn.v_proj.weight"), bv: f32(p + "self_attn.v_proj.bias"),
			qNorm: f32(p + "self_attn.q_norm.weight"), kNorm: f32(p + "self_attn.k_norm.weight"),
			wo:      m(p + "self_attn.o_proj.weight"),
			ffnNorm: f32(p + "post_attention_layernorm.weight"),
			wGate:   m(p + "mlp.gate_proj.weight"), wUp: m(p + "mlp.up_proj.weight"),
			wDown: m(p + "mlp.down_proj.weight"),
		})
	}
	w.outNorm = f32("model.norm.weight")
	w.output = w.embed
	if !cfg.TieWordEmbeddings {
		w.output = m("lm_head.weight")
	}
	return newModel(cfg, w, threads)
}

func randomTokens(n, vocab int, seed uint64) []int {
	rng := rand.New(rand.NewPCG(seed, 2))
	ids := make([]int, n)
	for i := range ids {
		ids[i] = rng.IntN(vocab)
	}
	return ids
}

// maxRelDiff returns max |got − want| / max(1, max |want|) over a row.
func maxRelDiff(got []float32, want []float64) float64 {
	scale, worst := 1.0, 0.0
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	for i, v := range want {
		worst = math.Max(worst, math.Abs(float64(got[i])-v))
	}
	return worst / scale
}

// testShapes are the configurations every forward test runs on.
func testShapes() map[string]Config {
	tied := tinyConfig()
	untied := tinyConfig()
	untied.TieWordEmbeddings = false
	wide := tinyConfig() // head_dim given, H·d = 64 ≠ h = 32; n_rep = 4
	wide.HeadDim, wide.NumKeyValueHeads = 16, 1
	return map[string]Config{"tied": tied, "untied": untied, "wide-heads": wide}
}

func TestPrefillMatchesReference(t *testing.T) {
	forEachLevel(t, prefillMatchesReference)
}

func prefillMatchesReference(t *testing.T, level kernels.Level) {
	for name, cfg := range testShapes() {
		for _, bf16 := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/bf16=%v", name, bf16), func(t *testing.T) {
				ref := randomTensors(cfg, 7)
				tokens := randomTokens(40, cfg.VocabSize, 3)
				tol := logitTol
				if bf16 && kernels.RoundsActivations(level) {
					tol = bf16InputTol
				}
				want := refForward(cfg, ref, tokens, refOptions{})
				m := memModel(cfg, ref, bf16, 2)
				got, err := m.forward(context.Background(), tokens, 0, &probes{allLogits: true})
				if err != nil {
					t.Fatal(err)
				}
				worst := 0.0
				V := cfg.VocabSize
				for pos := range tokens {
					worst = math.Max(worst, maxRelDiff(got[pos*V:(pos+1)*V], want.logits[pos]))
				}
				t.Logf("max relative logit error over %d positions: %.2g", len(tokens), worst)
				if worst > tol {
					t.Errorf("logits differ from the float64 reference by %.3g (tolerance %.0g)", worst, tol)
				}
			})
		}
	}
}

// A long prompt crosses the key tiles (kBlock) and query blocks (qBlock);
// running it as two chunks exercises attention over a filled cache.
func TestChunkedPrefillMatchesReference(t *testing.T) {
	cfg := tinyConfig()
	ref := randomTensors(cfg, 11)
	tokens := randomTokens(200, cfg.VocabSize, 5)
	want := refForward(cfg, ref, tokens, refOptions{})
	m := memModel(cfg, ref, true, 3)
	ctx := context.Background()
	if _, err := m.forward(ctx, tokens[:137], 0, nil); err != nil {
		t.Fatal(err)
	}
	got, err := m.forward(ctx, tokens[137:], 137, &probes{allLogits: true})
	if err != nil {
		t.Fatal(err)
	}
	V := cfg.VocabSize
	for i := range tokens[137:] {
		if d := maxRelDiff(got[i*V:(i+1)*V], want.logits[137+i]); d > logitTol {
			t.Fatalf("position %d: logits differ from the reference by %.3g", 137+i, d)
		}
	}
}

func TestDecodeMatchesPrefill(t *testing.T) {
	cfg := tinyConfig()
	ref := randomTensors(cfg, 13)
	tokens := randomTokens(30, cfg.VocabSize, 9)
	ctx := context.Background()
	batch := memModel(cfg, ref, true, 2)
	all, err := batch.forward(ctx, tokens, 0, &probes{allLogits: true})
	if err != nil {
		t.Fatal(err)
	}
	all = append([]float32(nil), all...)
	step := memModel(cfg, ref, true, 2)
	V := cfg.VocabSize
	for pos, id := range tokens {
		got, err := step.forward(ctx, []int{id}, pos, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, V)
		for i, v := range all[pos*V : (pos+1)*V] {
			want[i] = float64(v)
		}
		if d := maxRelDiff(got, want); d > logitTol {
			t.Fatalf("position %d: decode logits differ from prefill by %.3g", pos, d)
		}
	}
}

func TestThreadsGiveIdenticalLogits(t *testing.T) {
	forEachLevel(t, func(t *testing.T, _ kernels.Level) { threadsGiveIdenticalLogits(t) })
}

func threadsGiveIdenticalLogits(t *testing.T) {
	cfg := tinyConfig()
	ref := randomTensors(cfg, 17)
	tokens := randomTokens(50, cfg.VocabSize, 1)
	run := func(threads int) []float32 {
		m := memModel(cfg, ref, true, threads)
		out, err := m.forward(context.Background(), tokens, 0, &probes{allLogits: true})
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

func TestAblation(t *testing.T) {
	cfg := tinyConfig()
	ref := randomTensors(cfg, 19)
	tokens := randomTokens(12, cfg.VocabSize, 4)
	run := func(pr *probes) []float32 {
		m := memModel(cfg, ref, true, 2)
		pr.allLogits = true
		out, err := m.forward(context.Background(), tokens, 0, pr)
		if err != nil {
			t.Fatal(err)
		}
		return append([]float32(nil), out...)
	}
	base := run(&probes{})
	none := run(&probes{ablate: make([][]int, cfg.NumHiddenLayers)})
	for i := range base {
		if base[i] != none[i] {
			t.Fatalf("ablating no head changed logit %d: %v → %v", i, base[i], none[i])
		}
	}
	got := run(&probes{ablate: [][]int{nil, {2}}}) // layer 1, head 2
	want := refForward(cfg, ref, tokens, refOptions{ablate: map[[2]int]bool{{1, 2}: true}})
	V, changed := cfg.VocabSize, 0.0
	for pos := range tokens {
		if d := maxRelDiff(got[pos*V:(pos+1)*V], want.logits[pos]); d > logitTol {
			t.Fatalf("position %d: ablated logits differ from the ablated reference by %.3g", pos, d)
		}
		for i := range V {
			changed = math.Max(changed, math.Abs(float64(got[pos*V+i]-base[pos*V+i])))
		}
	}
	if changed < 1e-3 {
		t.Fatalf("ablating head 1.2 changed the logits by only %g", changed)
	}
}

func TestAttentionCapture(t *testing.T) {
	cfg := tinyConfig()
	ref := randomTensors(cfg, 23)
	tokens := randomTokens(20, cfg.VocabSize, 6)
	want := refForward(cfg, ref, tokens, refOptions{})
	m := memModel(cfg, ref, false, 2)
	L, H := cfg.NumHiddenLayers, cfg.NumAttentionHeads
	pr := &probes{attn: map[int]*trace.Attention{0: newAttention(L, H, 0), 7: newAttention(L, H, 7), 19: newAttention(L, H, 19)}}
	if _, err := m.forward(context.Background(), tokens, 0, pr); err != nil {
		t.Fatal(err)
	}
	for pos, a := range pr.attn {
		for l := range L {
			for qh := range H {
				row := a.Weights[l][qh]
				if len(row) != pos+1 {
					t.Fatalf("pos %d layer %d head %d: %d weights, want %d", pos, l, qh, len(row), pos+1)
				}
				var sum float64
				for k, p := range row {
					sum += float64(p)
					if d := math.Abs(float64(p) - want.attn[l][qh][pos][k]); d > 1e-5 {
						t.Fatalf("pos %d layer %d head %d key %d: weight %v, reference %v", pos, l, qh, k, p, want.attn[l][qh][pos][k])
					}
				}
				if math.Abs(sum-1) > 1e-5 {
					t.Fatalf("pos %d layer %d head %d: weights sum to %v", pos, l, qh, sum)
				}
			}
		}
	}
}

func TestMLPCapture(t *testing.T) {
	cfg := tinyConfig()
	ref := randomTensors(cfg, 29)
	tokens := randomTokens(9, cfg.VocabSize, 8)
	want := refForward(cfg, ref, tokens, refOptions{})
	m := memModel(cfg, ref, true, 2)
	pr := &probes{mlp: map[[2]int]*trace.MLP{{1, 5}: {Layer: 1, Pos: 5}, {0, 8}: {Layer: 0, Pos: 8}}}
	if _, err := m.forward(context.Background(), tokens, 0, pr); err != nil {
		t.Fatal(err)
	}
	for key, c := range pr.mlp {
		ref := want.mlp[key[0]][key[1]]
		if len(c.Values) != len(ref) {
			t.Fatalf("layer %d pos %d: %d values, want %d", key[0], key[1], len(c.Values), len(ref))
		}
		if d := maxRelDiff(c.Values, ref); d > logitTol {
			t.Fatalf("layer %d pos %d: silu(gate)·up differs from the reference by %.3g", key[0], key[1], d)
		}
	}
}

func TestForwardStopsWhenCancelled(t *testing.T) {
	cfg := tinyConfig()
	m := memModel(cfg, randomTensors(cfg, 31), true, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.forward(ctx, []int{1, 2, 3}, 0, nil); err != context.Canceled {
		t.Fatalf("forward with a cancelled context: %v, want context.Canceled", err)
	}
}

// A thread count above GOMAXPROCS is capped by the pool; asking for it
// again must keep the running pool instead of starting a new one.
func TestSetThreadsAboveCapKeepsPool(t *testing.T) {
	cfg := tinyConfig()
	m := memModel(cfg, randomTensors(cfg, 17), true, 1)
	m.SetThreads(1000)
	p := m.pool
	m.SetThreads(1000)
	if m.pool != p {
		t.Fatal("SetThreads(1000) twice started a second pool")
	}
	if got, want := m.Threads(), runtime.GOMAXPROCS(0); got != want {
		t.Errorf("Threads() = %d, want the cap %d", got, want)
	}
}
