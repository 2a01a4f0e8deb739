package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"loupe/engine/genmodel"
	"loupe/kernels"
)

// tinyQwen3Config is a small Qwen3 shape with Qwen3's oddities: head_dim
// 16 given explicitly, so H·d = 64 ≠ h = 32 (q_proj widens, o_proj
// narrows), GQA with n_rep 2, rope_theta 1e6, no biases.
func tinyQwen3Config() Config {
	return Config{
		Architecture: "Qwen3ForCausalLM", ModelType: "qwen3",
		HiddenSize: 32, IntermediateSize: 48, NumHiddenLayers: 2,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, HeadDim: 16,
		RMSNormEps: 1e-6, RopeTheta: 1e6, MaxPositionEmbeddings: 256,
		TieWordEmbeddings: true, VocabSize: 97, EOSTokenIDs: []int{96},
	}
}

// randomQwen3Tensors draws the tensors of docs/spec/qwen3.md §2: Qwen2's without
// biases, plus q_norm and k_norm [d] drawn wide (0.5 + |N(0, 1)|) so that
// a missing or misplaced QK-norm moves the logits far.
func randomQwen3Tensors(cfg Config, seed uint64) refTensors {
	r := randomTensors(cfg, seed)
	rng := rand.New(rand.NewPCG(seed, 3))
	for i := range cfg.NumHiddenLayers {
		p := fmt.Sprintf("model.layers.%d.self_attn.", i)
		for _, b := range []string{"q_proj.bias", "k_proj.bias", "v_proj.bias"} {
			delete(r.val, p+b)
			delete(r.shape, p+b)
		}
		for _, n := range []string{"q_norm.weight", "k_norm.weight"} {
			v := make([]float64, cfg.HeadDim)
			for j := range v {
				v[j] = float64(kernels.FromFloat32(float32(0.5 + math.Abs(rng.NormFloat64()))).Float32())
			}
			r.val[p+n], r.shape[p+n] = v, []int{cfg.HeadDim}
		}
	}
	return r
}

func qwen3Shapes() map[string]Config {
	tied := tinyQwen3Config()
	untied := tinyQwen3Config()
	untied.TieWordEmbeddings = false
	mqa := tinyQwen3Config() // one kv head for all four query heads
	mqa.NumKeyValueHeads = 1
	return map[string]Config{"tied": tied, "untied": untied, "mqa": mqa}
}

func TestQwen3PrefillMatchesReference(t *testing.T) {
	forEachLevel(t, func(t *testing.T, level kernels.Level) {
		for name, cfg := range qwen3Shapes() {
			for _, bf16 := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/bf16=%v", name, bf16), func(t *testing.T) {
					ref := randomQwen3Tensors(cfg, 41)
					tokens := randomTokens(40, cfg.VocabSize, 43)
					tol := logitTol
					if bf16 && kernels.RoundsActivations(level) {
						tol = bf16InputTol
					}
					want := refForward(cfg, ref, tokens, refOptions{})
					got, err := memModel(cfg, ref, bf16, 2).forward(context.Background(), tokens, 0, &probes{allLogits: true})
					if err != nil {
						t.Fatal(err)
					}
					worst, V := 0.0, cfg.VocabSize
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
	})
}

// The reference test can fail: the same weights without QK-norm (Qwen2's
// order) give logits far outside the tolerance.
func TestQwen3ReferenceSeesQKNorm(t *testing.T) {
	cfg := tinyQwen3Config()
	ref := randomQwen3Tensors(cfg, 41)
	tokens := randomTokens(40, cfg.VocabSize, 43)
	with := refForward(cfg, ref, tokens, refOptions{lastOnly: true})
	cfg.ModelType = "qwen2"
	without := refForward(cfg, ref, tokens, refOptions{lastOnly: true})
	got := make([]float32, cfg.VocabSize)
	for i, v := range without.logits[len(tokens)-1] {
		got[i] = float32(v)
	}
	if d := maxRelDiff(got, with.logits[len(tokens)-1]); d < 1000*logitTol {
		t.Fatalf("dropping QK-norm moves the logits by only %.3g", d)
	}
}

// Decoding one token at a time over the KV cache gives prefill's logits.
func TestQwen3DecodeMatchesPrefill(t *testing.T) {
	cfg := tinyQwen3Config()
	ref := randomQwen3Tensors(cfg, 47)
	tokens := randomTokens(30, cfg.VocabSize, 53)
	ctx := context.Background()
	want := refForward(cfg, ref, tokens, refOptions{})
	m := memModel(cfg, ref, true, 2)
	V := cfg.VocabSize
	for pos, id := range tokens {
		got, err := m.forward(ctx, []int{id}, pos, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := maxRelDiff(got[:V], want.logits[pos]); d > logitTol {
			t.Fatalf("position %d: decode logits differ from the reference by %.3g", pos, d)
		}
	}
}

// qwen3_17B is Qwen3-1.7B's config.json as re-saved by transformers 4.57.1
// (shared data configs/qwen3-1.7b; layer_types left out).
const qwen3_17B = `{
  "architectures": ["Qwen3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "bos_token_id": 151643, "dtype": "float16", "eos_token_id": 151645, "head_dim": 128,
  "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 6144,
  "max_position_embeddings": 40960, "max_window_layers": 28, "model_type": "qwen3",
  "num_attention_heads": 16, "num_hidden_layers": 28, "num_key_value_heads": 8,
  "rms_norm_eps": 1e-06, "rope_scaling": null, "rope_theta": 1000000, "sliding_window": null,
  "tie_word_embeddings": true, "transformers_version": "4.57.1", "use_cache": true,
  "use_sliding_window": false, "vocab_size": 151936
}`

// Parameter counts against docs/spec/qwen3.md §3's table (computed there from the
// published configs).
func TestQwen3Config(t *testing.T) {
	small := strings.NewReplacer(`"hidden_size": 2048`, `"hidden_size": 1024`, `"intermediate_size": 6144`, `"intermediate_size": 3072`).Replace(qwen3_17B)
	noHeadDim := strings.Replace(qwen3_17B, `"head_dim": 128,`, ``, 1)
	for _, tc := range []struct {
		name, json string
		total      int64
	}{{"1.7B", qwen3_17B, 1_720_574_976}, {"0.6B", small, 596_049_920}, {"1.7B without head_dim", noHeadDim, 1_720_574_976}} {
		c, err := ParseConfig([]byte(tc.json))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if c.HeadDim != 128 || c.RopeTheta != 1e6 || c.Architecture != "Qwen3ForCausalLM" || c.NumKeyValueHeads != 8 {
			t.Errorf("%s: %+v", tc.name, c)
		}
		i := modelInfo(c, weights{}, "", "", 0)
		if got := i.ParamsEmbedding + i.ParamsAttention + i.ParamsMLP + i.ParamsNorm + i.ParamsOutput; got != tc.total {
			t.Errorf("%s: %d parameters, want %d", tc.name, got, tc.total)
		}
		if i.KVBytesPerToken != 2*114_688 { // docs/spec/qwen3.md's bf16 figure; this cache holds fp32
			t.Errorf("%s: KV cache %d bytes per token, want 229,376", tc.name, i.KVBytesPerToken)
		}
	}
	bias := strings.Replace(qwen3_17B, `"attention_bias": false`, `"attention_bias": true`, 1)
	if _, err := ParseConfig([]byte(bias)); err == nil || !strings.Contains(err.Error(), "attention_bias") {
		t.Errorf("attention_bias true: %v, want a refusal naming it", err)
	}
}

// The generated tiny-qwen3 folder (gen-model) opens through Load and its
// forward pass matches the float64 reference run on the file's tensors:
// tensor names, shapes, head_dim and the Qwen3 tokenizer all come from
// the files.
func TestQwen3GeneratedModelMatchesReference(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tiny-qwen3")
	if err := genmodel.Write(dir, "tiny-qwen3", 3, "bf16"); err != nil {
		t.Fatal(err)
	}
	m, err := Load(dir, LoadOptions{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	cfg := m.Config()
	if cfg.Architecture != "Qwen3ForCausalLM" || cfg.HeadDim*cfg.NumAttentionHeads == cfg.HiddenSize {
		t.Fatalf("config %+v", cfg)
	}
	if !slices.Equal(m.EOS(), []int{151645, 151643}) {
		t.Errorf("EOS %v, want generation_config.json's [151645 151643]", m.EOS())
	}
	if got := m.Encode("<think>\n\n</think>"); !slices.Equal(got, []int{151667, 271, 151668}) {
		t.Errorf("<think> block encodes as %v", got)
	}
	ref := readRefTensors(t, dir)
	if _, ok := ref.val["model.layers.0.self_attn.q_proj.bias"]; ok || ref.val["model.layers.1.self_attn.k_norm.weight"] == nil {
		t.Fatal("generated tensors are not Qwen3's")
	}
	tokens := m.Encode("<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>")
	want := refForward(cfg, ref, tokens, refOptions{lastOnly: true})
	got, err := m.forward(context.Background(), tokens, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxRelDiff(got, want.logits[len(tokens)-1]); d > logitTol {
		t.Errorf("logits differ from the float64 reference by %.3g (tolerance %.0g)", d, logitTol)
	}
}
