package engine

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"loupe/engine/genmodel"
	"loupe/engine/safetensors"
	"loupe/kernels"
	"loupe/trace"
	"loupe/trace/stats"
)

// moeCase is one MoE family's tiny model and its float64 reference.
type moeCase struct {
	name   string
	cfg    Config
	prefix string
	ref    func(seed uint64) refTensors
	run    func(w refTensors, tokens []int, mut refMoEMutation) refMoERun
}

func moeCases() []moeCase {
	olmoe, q3, q35 := tinyOlmoe(), tinyQwen3Moe(), tinyQwen35Moe()
	const p35 = "model.language_model."
	return []moeCase{
		{"olmoe", olmoe, "model.", func(s uint64) refTensors { return randomMoE(olmoe, s) },
			func(w refTensors, tok []int, mut refMoEMutation) refMoERun { return refMoEForward(olmoe, w, tok, mut) }},
		{"qwen3_moe", q3, "model.", func(s uint64) refTensors { return randomMoE(q3, s) },
			func(w refTensors, tok []int, mut refMoEMutation) refMoERun { return refMoEForward(q3, w, tok, mut) }},
		{"qwen3_5_moe", q35, p35, func(s uint64) refTensors { return randomQwen35Moe(q35, p35, s) },
			func(w refTensors, tok []int, mut refMoEMutation) refMoERun {
				return ref35MoeForward(q35, w, p35, tok, mut)
			}},
	}
}

// moeSeed is a weight seed whose routing has a margin of at least 1e-4
// at every layer and position of moeTokens (checked by each test).
const moeSeed = 16

func moeTokens(V int) []int { return randomTokens(40, V, 8) }

// allRoutes asks the probes for the router's choice at every position.
func allRoutes(T int) *probes {
	pr := &probes{allLogits: true, experts: map[int]*[]trace.Routing{}}
	for t := range T {
		pr.experts[t] = &[]trace.Routing{}
	}
	return pr
}

// checkRoutes compares the engine's routing with the reference's: the same
// experts in the same order and weights and probabilities within fp32 noise.
func checkRoutes(t *testing.T, pr *probes, want refMoERun, cfg Config) {
	t.Helper()
	for pos, caps := range pr.experts {
		sparse := 0
		for l := range cfg.NumHiddenLayers {
			if !cfg.MoE.sparse(l) {
				continue
			}
			got, rt := (*caps)[sparse], want.routes[l][pos]
			sparse++
			if got.Layer != l || fmt.Sprint(got.IDs) != fmt.Sprint(rt.ids) {
				t.Fatalf("layer %d position %d: experts %v (layer %d), the reference chooses %v", l, pos, got.IDs, got.Layer, rt.ids)
			}
			for i, g := range got.Weights {
				if math.Abs(float64(g)-rt.weights[i]) > 1e-5 {
					t.Fatalf("layer %d position %d: weight of expert %d = %v, reference %v", l, pos, got.IDs[i], g, rt.weights[i])
				}
			}
			for e, p := range got.Probs {
				if math.Abs(float64(p)-rt.probs[e]) > 1e-5 {
					t.Fatalf("layer %d position %d: p[%d] = %v, reference %v", l, pos, e, p, rt.probs[e])
				}
			}
		}
		if sparse != len(*caps) {
			t.Fatalf("position %d: %d routings captured for %d sparse layers", pos, len(*caps), sparse)
		}
	}
}

// engineChoice is the experts the engine ran at (layer, position).
func engineChoice(pr *probes, cfg Config) func(l, pos int) []int {
	return func(l, pos int) []int {
		for _, r := range *pr.experts[pos] {
			if r.Layer == l {
				return r.IDs
			}
		}
		return nil
	}
}

// TestMoEMatchesReference: each family at every kernel level, bf16 and f32
// weights, per-expert and fused expert tensors, against the float64
// reference: logits, and the experts, weights and probabilities of every
// layer and position.
func TestMoEMatchesReference(t *testing.T) {
	forEachLevel(t, func(t *testing.T, level kernels.Level) {
		for _, tc := range moeCases() {
			ref := tc.ref(moeSeed)
			tokens := moeTokens(tc.cfg.VocabSize)
			want := tc.run(ref, tokens, refMoEMutation{})
			if m := want.minMargin(); m < 1e-4 {
				t.Fatalf("%s: seed %d routes a near-tie (margin %.2g): choose another", tc.name, moeSeed, m)
			}
			for _, fused := range []bool{false, true} {
				for _, dtype := range []string{"BF16", "F32"} {
					t.Run(fmt.Sprintf("%s/%s/fused=%v", tc.name, dtype, fused), func(t *testing.T) {
						w := ref
						if fused {
							w = fuseExperts(tc.cfg, ref, tc.prefix)
						}
						m := qwen35Model(t, tc.cfg, w, dtype, 2)
						pr := allRoutes(len(tokens))
						got, err := m.forward(context.Background(), tokens, 0, pr)
						if err != nil {
							t.Fatal(err)
						}
						tol, want := logitTol, want
						if dtype == "BF16" && kernels.RoundsActivations(level) {
							// bf16-rounded activations move the router's
							// inputs by more than the margin of a near-tie:
							// the reference runs the experts the engine chose.
							tol = bf16InputTol
							want = tc.run(ref, tokens, refMoEMutation{force: engineChoice(pr, tc.cfg)})
						} else {
							checkRoutes(t, pr, want, tc.cfg)
						}
						if e := logitsErr(got, want.logits, tc.cfg.VocabSize); e > tol {
							t.Errorf("logits differ from the float64 reference by %.3g (tolerance %.0g)", e, tol)
						} else {
							t.Logf("max relative logit error over %d positions: %.2g", len(tokens), e)
						}
					})
				}
			}
		}
	})
}

// TestMoEReferenceSeesMistakes: the reference with a plausible bug — the
// other renormalisation, one expert more or fewer, experts shifted by
// one, gate and up swapped — is far from the engine, so the tests above
// would catch the engine making it.
func TestMoEReferenceSeesMistakes(t *testing.T) {
	for _, tc := range moeCases() {
		ref := tc.ref(moeSeed)
		tokens := moeTokens(tc.cfg.VocabSize)
		m := qwen35Model(t, tc.cfg, ref, "F32", 2)
		got, err := m.forward(context.Background(), tokens, 0, &probes{allLogits: true})
		if err != nil {
			t.Fatal(err)
		}
		muts := map[string]refMoEMutation{"renormalisation": {flipNorm: true}, "top-k + 1": {topK: tc.cfg.MoE.TopK + 1},
			"expert order": {shift: true}, "gate/up swapped": {swapGateUp: true}}
		if tc.cfg.MoE.TopK > 1 {
			muts["top-k − 1"] = refMoEMutation{topK: tc.cfg.MoE.TopK - 1}
		}
		for name, mut := range muts {
			bad := tc.run(ref, tokens, mut)
			if e := logitsErr(got, bad.logits, tc.cfg.VocabSize); e < 100*logitTol {
				t.Errorf("%s, %s: the engine is within %.2g of a reference with that mistake", tc.name, name, e)
			}
		}
	}
}

// TestMoEDecodeMatchesPrefill: token-by-token decode gives the reference's
// logits and routing at every position, as the batched prefill does.
func TestMoEDecodeMatchesPrefill(t *testing.T) {
	for _, tc := range moeCases() {
		t.Run(tc.name, func(t *testing.T) {
			ref := tc.ref(moeSeed)
			tokens := moeTokens(tc.cfg.VocabSize)
			want := tc.run(ref, tokens, refMoEMutation{})
			m := qwen35Model(t, tc.cfg, ref, "BF16", 2)
			pr := allRoutes(len(tokens))
			for pos, id := range tokens {
				got, err := m.forward(context.Background(), []int{id}, pos, pr)
				if err != nil {
					t.Fatal(err)
				}
				if d := maxRelDiff(got, want.logits[pos]); d > logitTol {
					t.Fatalf("position %d: decode logits differ from the reference by %.3g", pos, d)
				}
			}
			checkRoutes(t, pr, want, tc.cfg)
		})
	}
}

// TestMoEThreadsGiveIdenticalLogits: the experts' terms are summed in one
// order whatever the workers.
func TestMoEThreadsGiveIdenticalLogits(t *testing.T) {
	for _, tc := range moeCases() {
		ref := tc.ref(moeSeed)
		tokens := moeTokens(tc.cfg.VocabSize)
		run := func(threads int) []float32 {
			out, err := qwen35Model(t, tc.cfg, ref, "BF16", threads).forward(context.Background(), tokens, 0, &probes{allLogits: true})
			if err != nil {
				t.Fatal(err)
			}
			return append([]float32(nil), out...)
		}
		one, three := run(1), run(3)
		for i := range one {
			if one[i] != three[i] {
				t.Fatalf("%s: logit %d: %v with 1 thread, %v with 3", tc.name, i, one[i], three[i])
			}
		}
	}
}

// Configs as released (docs/spec/moe.md §3), trimmed to the keys read.
const (
	qwen3MoeConfig = `{"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 2048,
  "intermediate_size": 6144, "moe_intermediate_size": 768, "num_hidden_layers": 48, "num_attention_heads": 32,
  "num_key_value_heads": 4, "head_dim": 128, "num_experts": 128, "num_experts_per_tok": 8, "norm_topk_prob": true,
  "decoder_sparse_step": 1, "mlp_only_layers": [], "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
  "max_position_embeddings": 40960, "tie_word_embeddings": false, "vocab_size": 151936, "attention_bias": false,
  "hidden_act": "silu", "eos_token_id": 151645, "torch_dtype": "bfloat16"}`
	olmoeConfig = `{"architectures": ["OlmoeForCausalLM"], "model_type": "olmoe", "hidden_size": 2048,
  "intermediate_size": 1024, "num_hidden_layers": 16, "num_attention_heads": 16, "num_key_value_heads": 16,
  "num_experts": 64, "num_experts_per_tok": 8, "norm_topk_prob": false, "clip_qkv": null, "rms_norm_eps": 1e-05,
  "rope_theta": 10000.0, "max_position_embeddings": 4096, "tie_word_embeddings": false, "vocab_size": 50304,
  "attention_bias": false, "hidden_act": "silu", "eos_token_id": 50279, "pad_token_id": 1, "torch_dtype": "bfloat16"}`
	qwen35MoeConfig = `{"architectures": ["Qwen3_5MoeForConditionalGeneration"], "model_type": "qwen3_5_moe",
  "text_config": {"model_type": "qwen3_5_moe_text", "hidden_size": 2048, "num_hidden_layers": 40,
  "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256, "attn_output_gate": true,
  "full_attention_interval": 4, "linear_num_key_heads": 16, "linear_num_value_heads": 32,
  "linear_key_head_dim": 128, "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4,
  "num_experts": 256, "num_experts_per_tok": 8, "moe_intermediate_size": 512,
  "shared_expert_intermediate_size": 512, "rms_norm_eps": 1e-06, "max_position_embeddings": 262144,
  "rope_parameters": {"rope_type": "default", "rope_theta": 10000000, "partial_rotary_factor": 0.25,
  "mrope_section": [11, 11, 10]}, "tie_word_embeddings": false, "vocab_size": 248320, "eos_token_id": 248044}}`
)

func TestMoEConfigs(t *testing.T) {
	q3, err := ParseConfig([]byte(qwen3MoeConfig))
	if err != nil {
		t.Fatal(err)
	}
	if m := q3.MoE; q3.HeadDim != 128 || m.Experts != 128 || m.TopK != 8 || m.ExpertSize != 768 || !m.NormTopK || m.SharedSize != 0 || !m.sparse(0) || !m.sparse(47) {
		t.Errorf("Qwen3-30B-A3B: %+v head_dim %d", *m, q3.HeadDim)
	}
	ol, err := ParseConfig([]byte(olmoeConfig))
	if err != nil {
		t.Fatal(err)
	}
	if m := ol.MoE; ol.HeadDim != 128 || ol.RMSNormEps != 1e-5 || m.Experts != 64 || m.TopK != 8 || m.ExpertSize != 1024 || m.NormTopK {
		t.Errorf("OLMoE: %+v head_dim %d eps %g", *m, ol.HeadDim, ol.RMSNormEps)
	}
	q35, err := ParseConfig([]byte(qwen35MoeConfig))
	if err != nil {
		t.Fatal(err)
	}
	if m := q35.MoE; q35.Qwen35 == nil || m.Experts != 256 || m.TopK != 8 || m.ExpertSize != 512 || m.SharedSize != 512 || !m.NormTopK || q35.IntermediateSize != 512 {
		t.Errorf("Qwen3.5-35B-A3B: %+v, intermediate %d", *m, q35.IntermediateSize)
	}
	// Qwen3MoeConfig's class defaults: no renormalisation; a sparse step.
	def, err := ParseConfig([]byte(strings.NewReplacer(`"norm_topk_prob": true,`, "", `"decoder_sparse_step": 1`, `"decoder_sparse_step": 2`).Replace(qwen3MoeConfig)))
	if err != nil {
		t.Fatal(err)
	}
	if def.MoE.NormTopK || def.MoE.sparse(0) || !def.MoE.sparse(1) {
		t.Errorf("defaults: norm %v, layer 0 sparse %v, layer 1 sparse %v", def.MoE.NormTopK, def.MoE.sparse(0), def.MoE.sparse(1))
	}
	for _, tc := range []struct{ base, from, to, want string }{
		{qwen3MoeConfig, `"num_experts_per_tok": 8`, `"num_experts_per_tok": 129`, "num_experts_per_tok"},
		{qwen3MoeConfig, `"num_experts": 128`, `"num_experts": 0`, "num_experts"},
		{qwen3MoeConfig, `"mlp_only_layers": []`, `"mlp_only_layers": [48]`, "mlp_only_layers"},
		{qwen3MoeConfig, `"decoder_sparse_step": 1`, `"decoder_sparse_step": 0`, "decoder_sparse_step"},
		{qwen3MoeConfig, `"attention_bias": false`, `"attention_bias": true`, "attention_bias"},
		{olmoeConfig, `"clip_qkv": null`, `"clip_qkv": 8.0`, "clip_qkv"},
		{olmoeConfig, `"num_experts": 64`, `"num_experts": 2000`, "num_experts"},
		{qwen35MoeConfig, `"num_experts_per_tok": 8`, `"num_experts_per_tok": 0`, "num_experts_per_tok"},
		{qwen35MoeConfig, `"moe_intermediate_size": 512`, `"moe_intermediate_size": -1`, "intermediate_size"},
	} {
		bad := strings.Replace(tc.base, tc.from, tc.to, 1)
		if _, err := ParseConfig([]byte(bad)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %s", tc.to, err, tc.want)
		}
	}
}

// TestMoELoaderRefuses: a layer with both expert spellings, an expert
// missing, or an expert beyond num_experts is refused by name.
func TestMoELoaderRefuses(t *testing.T) {
	cfg := tinyOlmoe()
	ref := randomMoE(cfg, moeSeed)
	fused := fuseExperts(cfg, ref, "model.")
	for name, tc := range map[string]struct {
		edit func(r refTensors) refTensors
		want string
	}{
		"both": {func(r refTensors) refTensors {
			for n, v := range fused.val {
				r.val[n], r.shape[n] = v, fused.shape[n]
			}
			return r
		}, "both"},
		"missing": {func(r refTensors) refTensors {
			delete(r.val, "model.layers.1.mlp.experts.7.up_proj.weight")
			return r
		}, "experts.7.up_proj"},
		"extra": {func(r refTensors) refTensors {
			n := "model.layers.0.mlp.experts.8.gate_proj.weight"
			r.val[n], r.shape[n] = ref.val["model.layers.0.mlp.experts.0.gate_proj.weight"], []int{16, 32}
			return r
		}, "expert 8"},
	} {
		r := refTensors{val: map[string][]float64{}, shape: map[string][]int{}}
		for n, v := range ref.val {
			r.val[n], r.shape[n] = v, ref.shape[n]
		}
		r = tc.edit(r)
		var list []safetensors.Tensor
		for n, v := range r.val {
			list = append(list, safetensors.Tensor{Name: n, DType: "F32", Shape: r.shape[n], Data: encode(v, "F32")})
		}
		path := filepath.Join(t.TempDir(), "model.safetensors")
		if err := safetensors.Write(path, list, nil); err != nil {
			t.Fatal(err)
		}
		set, err := safetensors.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = loadWeights(set, cfg, nil)
		set.Close()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %q", name, err, tc.want)
		}
	}
}

// TestMoEGeneratedModelsMatchReference: gen-model's tiny MoE folders load
// through config.json and the tokenizer, and the float64 reference run on
// the tensors read back from the file gives the engine's logits; the
// engine's experts are the reference's wherever the choice is not a
// near-tie.
func TestMoEGeneratedModelsMatchReference(t *testing.T) {
	for _, shape := range []string{"tiny-olmoe", "tiny-qwen3moe", "tiny-qwen35moe"} {
		t.Run(shape, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), shape)
			if err := genmodel.Write(dir, shape, 3, "f32"); err != nil {
				t.Fatal(err)
			}
			m, err := Load(dir, LoadOptions{Threads: 2})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			cfg, ref := m.Config(), readRefTensors(t, dir)
			tokens := m.Encode("The experts a token reads")
			pr := allRoutes(len(tokens))
			got, err := m.forward(context.Background(), tokens, 0, pr)
			if err != nil {
				t.Fatal(err)
			}
			mut := refMoEMutation{force: engineChoice(pr, cfg)}
			var want, free refMoERun
			if cfg.Qwen35 != nil {
				want = ref35MoeForward(cfg, ref, "model.language_model.", tokens, mut)
				free = ref35MoeForward(cfg, ref, "model.language_model.", tokens, refMoEMutation{})
			} else {
				want, free = refMoEForward(cfg, ref, tokens, mut), refMoEForward(cfg, ref, tokens, refMoEMutation{})
			}
			if e := logitsErr(got, want.logits, cfg.VocabSize); e > logitTol {
				t.Errorf("logits differ from the float64 reference by %.3g", e)
			}
			sparse := 0
			for l, layer := range free.routes {
				for pos, rt := range layer {
					if ids := mut.forced(l, pos); rt.margin > 1e-4 && fmt.Sprint(ids) != fmt.Sprint(rt.ids) {
						t.Errorf("layer %d position %d: experts %v, the reference chooses %v (margin %.2g)", l, pos, ids, rt.ids, rt.margin)
					}
					sparse++
				}
			}
			if sparse == 0 {
				t.Fatal("no sparse layer routed")
			}
			checkProbes(t, m, cfg, ref, tokens)
		})
	}
}

// checkProbes: Inspect's experts at a position, and each generated
// token's, are the float64 reference's routing at that position (for a
// token, the position whose logits chose it), teacher-forced on the
// sequence the engine produced.
func checkProbes(t *testing.T, m *Model, cfg Config, ref refTensors, prompt []int) {
	t.Helper()
	ctx := context.Background()
	opt := GenerateOptions{Settings: trace.Settings{MaxTokens: 4}, EOS: []int{}}
	run, err := m.Generate(ctx, m.tok.Decode(prompt), opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	var seq []int
	for _, tok := range run.Tokens {
		seq = append(seq, tok.ID)
	}
	nPrompt := len(seq) - len(run.Steps)
	pos := 1
	in, err := m.Inspect(ctx, seq, pos, InspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var want refMoERun
	if cfg.Qwen35 != nil {
		want = ref35MoeForward(cfg, ref, "model.language_model.", seq, refMoEMutation{})
	} else {
		want = refMoEForward(cfg, ref, seq, refMoEMutation{})
	}
	same := func(what string, got []trace.Routing, at int) {
		if len(got) != cfg.NumHiddenLayers {
			t.Fatalf("%s: %d MoE layers routed, want %d", what, len(got), cfg.NumHiddenLayers)
		}
		for _, r := range got {
			w := want.routes[r.Layer][at]
			if w.margin > 1e-4 && fmt.Sprint(r.IDs) != fmt.Sprint(w.ids) {
				t.Errorf("%s, layer %d: experts %v, the reference chooses %v", what, r.Layer, r.IDs, w.ids)
			}
			var sum float64
			for _, p := range r.Probs {
				sum += float64(p)
			}
			if len(r.Probs) != cfg.MoE.Experts || len(r.Weights) != cfg.MoE.TopK || math.Abs(sum-1) > 1e-5 {
				t.Errorf("%s, layer %d: %d probs summing to %v, %d weights", what, r.Layer, len(r.Probs), sum, len(r.Weights))
			}
		}
	}
	same("inspect", in.Experts, pos)
	for i, st := range run.Steps {
		same(fmt.Sprintf("generated token %d", i), st.Experts, nPrompt-1+i)
	}
}

// TestMoEParams: total and active parameters of the released shapes as
// docs/spec/moe.md §5 computes them.
func TestMoEParams(t *testing.T) {
	for _, tc := range []struct {
		name          string
		config        string
		total, active int64
	}{
		{"Qwen3-30B-A3B", qwen3MoeConfig, 30_532_122_624, 3_353_032_704},
		{"OLMoE-1B-7B", olmoeConfig, 6_919_161_856, 1_282_017_280},
		{"Qwen3.5-35B-A3B", qwen35MoeConfig, 34_660_610_688, 3_454_988_928},
	} {
		cfg, err := ParseConfig([]byte(tc.config))
		if err != nil {
			t.Fatal(err)
		}
		info := modelInfo(cfg, weights{}, "", "", 0)
		if got := stats.TotalParams(info); got != tc.total {
			t.Errorf("%s: %d parameters, want %d", tc.name, got, tc.total)
		}
		if got := stats.ActiveParams(info); got != tc.active {
			t.Errorf("%s: %d active parameters, want %d", tc.name, got, tc.active)
		}
	}
}

// TestMoEExpertBytes: the model's description counts its MoE layers and
// one expert's bytes as the config gives them (3·h·I numbers at the
// file's width), so a dense model of the same parameters reads
// (E − k)·3·h·I numbers more per MoE layer than a token does.
func TestMoEExpertBytes(t *testing.T) {
	for _, tc := range moeCases() {
		for _, dt := range []struct {
			name  string
			bytes int64
		}{{"BF16", 2}, {"F32", 4}} {
			m := qwen35Model(t, tc.cfg, tc.ref(moeSeed), dt.name, 1)
			c, info := tc.cfg.MoE, m.Info()
			moeLayers := 0
			for l := range tc.cfg.NumHiddenLayers {
				if c.Dense == nil || !c.Dense[l] {
					moeLayers++
				}
			}
			one := 3 * int64(tc.cfg.HiddenSize) * int64(c.ExpertSize) * dt.bytes
			if info.MoELayers != moeLayers || info.ExpertBytes != one {
				t.Errorf("%s %s: %d MoE layers, %d bytes an expert; want %d, %d", tc.name, dt.name, info.MoELayers, info.ExpertBytes, moeLayers, one)
			}
			read, dense := stats.ExpertBytes(info)
			if want := int64(moeLayers*(c.Experts-c.TopK)) * one; dense-read != want {
				t.Errorf("%s %s: a dense model reads %d bytes more, want %d", tc.name, dt.name, dense-read, want)
			}
		}
	}
}

// TestMoECounterfactual: experts switched off (masked out of the router,
// the next best running instead) and a smaller top-k give the float64
// reference with the same mask or k, in prefill and decode, and differ
// from the model left alone; Generate records them and never runs an
// expert switched off.
func TestMoECounterfactual(t *testing.T) {
	for _, tc := range moeCases() {
		t.Run(tc.name, func(t *testing.T) {
			ref := tc.ref(moeSeed)
			tokens := moeTokens(tc.cfg.VocabSize)
			plain := tc.run(ref, tokens, refMoEMutation{})
			// Switch off, in every MoE layer, the expert the model liked best
			// for the last token, and one more in layer 0.
			off, offMap := []trace.Expert{}, map[int][]int{}
			for l := range tc.cfg.NumHiddenLayers {
				if tc.cfg.MoE.sparse(l) {
					e := plain.routes[l][len(tokens)-1].ids[0]
					off, offMap[l] = append(off, trace.Expert{Layer: l, Expert: e}), append(offMap[l], e)
				}
			}
			extra := (offMap[0][0] + 1) % tc.cfg.MoE.Experts
			off, offMap[0] = append(off, trace.Expert{Layer: 0, Expert: extra}), append(offMap[0], extra)
			k1 := max(1, tc.cfg.MoE.TopK-1)
			for name, c := range map[string]struct {
				off   []trace.Expert
				topK  int
				muted refMoEMutation
			}{
				"experts off":  {off, 0, refMoEMutation{off: offMap}},
				"smaller k":    {nil, k1, refMoEMutation{topK: k1}},
				"off, small k": {off, k1, refMoEMutation{off: offMap, topK: k1}},
			} {
				free := tc.run(ref, tokens, c.muted)
				moved := 0.0
				for pos := range tokens {
					moved = max(moved, maxRelDiff(f32(plain.logits[pos]), free.logits[pos]))
				}
				if moved < 100*logitTol {
					t.Fatalf("%s: the counterfactual changes the logits by only %.2g", name, moved)
				}
				m := qwen35Model(t, tc.cfg, ref, "F32", 2)
				if err := m.checkExperts(c.off, c.topK); err != nil {
					t.Fatal(err)
				}
				pr := allRoutes(len(tokens))
				pr.expertsOff, pr.topK = trace.ExpertsOff(c.off, tc.cfg.NumHiddenLayers), c.topK
				got, err := m.forward(context.Background(), tokens, 0, pr)
				if err != nil {
					t.Fatal(err)
				}
				// Where the masked router has a near-tie (margin ≤ 1e-4) fp32
				// and float64 may choose differently: the reference then runs
				// the engine's choice, and everywhere else the choice must be
				// the reference's own.
				forced := c.muted
				forced.force = engineChoice(pr, tc.cfg)
				want := tc.run(ref, tokens, forced)
				for l, layer := range free.routes {
					for pos, rt := range layer {
						ids := forced.forced(l, pos)
						if rt.margin > 1e-4 && fmt.Sprint(ids) != fmt.Sprint(rt.ids) {
							t.Errorf("%s, layer %d position %d: experts %v, the reference chooses %v", name, l, pos, ids, rt.ids)
						}
						for _, e := range ids {
							if slices.Contains(c.muted.off[l], e) {
								t.Errorf("%s, layer %d position %d: expert %d ran, switched off", name, l, pos, e)
							}
						}
					}
				}
				checkRoutes(t, pr, want, tc.cfg)
				if e := logitsErr(got, want.logits, tc.cfg.VocabSize); e > logitTol {
					t.Errorf("%s: logits differ from the reference by %.3g", name, e)
				}
				// Decode, one token at a time, runs the same mask.
				dm := qwen35Model(t, tc.cfg, ref, "F32", 2)
				for pos, id := range tokens {
					dpr := &probes{expertsOff: pr.expertsOff, topK: c.topK}
					lg, err := dm.forward(context.Background(), []int{id}, pos, dpr)
					if err != nil {
						t.Fatal(err)
					}
					if d := maxRelDiff(lg, want.logits[pos]); d > logitTol {
						t.Fatalf("%s, decode at position %d: logits differ from the reference by %.3g", name, pos, d)
					}
				}
			}
		})
	}
}

// TestMoECounterfactualGenerate: Generate records the experts switched
// off and the top-k, and never runs an expert switched off.
func TestMoECounterfactualGenerate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "olmoe")
	if err := genmodel.Write(dir, "tiny-olmoe", 3, "f32"); err != nil {
		t.Fatal(err)
	}
	m, err := Load(dir, LoadOptions{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	cfg := m.Config()
	var off []trace.Expert
	for l := range cfg.NumHiddenLayers {
		off = append(off, trace.Expert{Layer: l, Expert: l}, trace.Expert{Layer: l, Expert: 3})
	}
	offs := trace.ExpertsOff(off, cfg.NumHiddenLayers)
	opt := DefaultGenerateOptions()
	opt.Settings.MaxTokens, opt.DisableExperts, opt.TopKExperts = 6, off, 1
	run, err := m.Generate(context.Background(), "The experts a token reads", opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Settings.DisableExperts) != len(off) || run.Settings.TopKExperts != 1 || len(run.Steps) == 0 {
		t.Fatalf("settings %+v, %d steps", run.Settings, len(run.Steps))
	}
	for _, st := range run.Steps {
		for _, r := range st.Experts {
			if len(r.IDs) != 1 || len(r.Weights) != 1 {
				t.Errorf("layer %d ran experts %v, want one", r.Layer, r.IDs)
			}
			for _, e := range r.IDs {
				if slices.Contains(offs[r.Layer], e) || r.Probs[offs[r.Layer][0]] != 0 {
					t.Errorf("layer %d ran expert %d with %v switched off (probs %v)", r.Layer, e, offs[r.Layer], r.Probs)
				}
			}
		}
	}
	want := float64(m.Info().WeightBytesPerTok - int64(m.Info().MoELayers*(cfg.MoE.TopK-1))*m.Info().ExpertBytes)
	if run.Timing.BytesPerToken < want || run.Timing.BytesPerToken >= float64(m.Info().WeightBytesPerTok)+float64(m.Info().KVBytesPerToken)*40 {
		t.Errorf("bytes per token %v, want the weights of one expert a layer (%v) plus the KV cache", run.Timing.BytesPerToken, want)
	}
}

// TestMoECounterfactualRefused: what a model cannot run is refused with
// a clear error before anything runs.
func TestMoECounterfactualRefused(t *testing.T) {
	cfg := tinyQwen3Moe() // E = 8, k = 3, layer 1 dense
	m := qwen35Model(t, cfg, randomMoE(cfg, moeSeed), "F32", 1)
	all := make([]trace.Expert, 0, 6)
	for e := range 6 {
		all = append(all, trace.Expert{Layer: 0, Expert: e})
	}
	for name, c := range map[string]struct {
		off  []trace.Expert
		topK int
		want string
	}{
		"dense layer":   {[]trace.Expert{{Layer: 1, Expert: 0}}, 0, "dense layer"},
		"layer":         {[]trace.Expert{{Layer: 9, Expert: 0}}, 0, "layer 9 is out of range"},
		"expert":        {[]trace.Expert{{Layer: 0, Expert: 8}}, 0, "expert 8 is out of range"},
		"top-k 0 ok":    {nil, 0, ""},
		"top-k large":   {nil, 4, "want 1…3"},
		"too few left":  {all, 0, "keeps 2 experts"},
		"enough with k": {all, 2, ""},
	} {
		err := m.checkExperts(c.off, c.topK)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// f32 rounds reference values to float32 (to compare two references with
// maxRelDiff).
func f32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// TestMoEBytesPerToken: with f32 weights a decode step reads 4 bytes of
// every active parameter (the router, k experts and the shared expert of
// each MoE layer, attention, norms, the output head) but of the
// embedding table only the token's row: what the Timing panel's decode
// GB/s counts, not the file's size.
func TestMoEBytesPerToken(t *testing.T) {
	for _, tc := range moeCases() {
		m := qwen35Model(t, tc.cfg, tc.ref(moeSeed), "F32", 1)
		info := m.Info()
		want := 4 * (stats.ActiveParams(info) - info.ParamsEmbedding + int64(tc.cfg.HiddenSize))
		if info.WeightBytesPerTok != want {
			t.Errorf("%s: %d bytes read per token, want %d", tc.name, info.WeightBytesPerTok, want)
		}
	}
}

// TestMoECounterfactualInspect: Inspect with experts switched off (or a
// smaller k) runs every position up to pos with them, as the float64
// reference with the same mask, even when the cache holds the sequence
// computed by the model left alone; and the cache it leaves is not taken
// for the model's own afterwards.
func TestMoECounterfactualInspect(t *testing.T) {
	for _, tc := range moeCases() {
		t.Run(tc.name, func(t *testing.T) {
			ref := tc.ref(moeSeed)
			tokens := moeTokens(tc.cfg.VocabSize)
			pos := len(tokens) - 1
			plain := tc.run(ref, tokens, refMoEMutation{})
			off, offMap := []trace.Expert{}, map[int][]int{}
			for l := range tc.cfg.NumHiddenLayers { // each sparse layer's favourite at the last token
				if tc.cfg.MoE.sparse(l) {
					e := plain.routes[l][pos].ids[0]
					off, offMap[l] = append(off, trace.Expert{Layer: l, Expert: e}), append(offMap[l], e)
				}
			}
			// The smaller k of the olmoe case (k 2 → 1); the others'
			// k − 1 routes near-ties under this seed.
			k1 := 0
			if tc.name == "olmoe" {
				k1 = 1
			}
			cf := tc.run(ref, tokens, refMoEMutation{off: offMap, topK: k1})
			// Inspect the last position before the first near-tie under the
			// mask (fp32 and float64 may choose differently there).
			pos = clearRoutes(cf)
			if pos < 8 {
				t.Fatalf("seed %d routes a near-tie under the mask at position %d: choose another", moeSeed, pos+1)
			}
			tokens = tokens[:pos+1]
			m := qwen35Model(t, tc.cfg, ref, "F32", 2)
			if _, err := m.forward(context.Background(), tokens, 0, nil); err != nil { // the cache holds the plain sequence
				t.Fatal(err)
			}
			ctx := context.Background()
			kvl := tc.cfg.NumHiddenLayers - 1 // the last layer: attention in every family here, its keys moved by the mask
			in, err := m.Inspect(ctx, tokens, pos, InspectOptions{Layer: kvl, DisableExperts: off, TopKExperts: k1})
			if err != nil {
				t.Fatal(err)
			}
			checkInspectRoutes(t, "counterfactual", in.Experts, cf, pos, tc.cfg)
			plainIn, err := m.Inspect(ctx, tokens, pos, InspectOptions{Layer: kvl})
			if err != nil {
				t.Fatal(err)
			}
			checkInspectRoutes(t, "after it, the model left alone", plainIn.Experts, plain, pos, tc.cfg)
			// The KV rows are the counterfactual's own, every position.
			if len(in.KV.Keys) != pos+1 || len(plainIn.KV.Keys) != pos+1 {
				t.Fatalf("KV rows: %d under the mask, %d without, want %d", len(in.KV.Keys), len(plainIn.KV.Keys), pos+1)
			}
			if maxRelDiff(in.KV.Keys[pos], f64(plainIn.KV.Keys[pos])) < 1e-3 {
				t.Errorf("layer %d keys at %d: the counterfactual's are the model's", kvl, pos)
			}
			if _, err := m.Inspect(ctx, tokens, pos, InspectOptions{TopKExperts: tc.cfg.MoE.TopK + 1}); err == nil {
				t.Error("a top-k above the model's k was accepted")
			}
		})
	}
}

// clearRoutes is the last position before the first whose routing, in
// any layer, has a margin under 1e-4.
func clearRoutes(r refMoERun) int {
	T := len(r.logits)
	for pos := range T {
		for _, layer := range r.routes {
			if layer != nil && layer[pos].margin < 1e-4 {
				return pos - 1
			}
		}
	}
	return T - 1
}

// checkInspectRoutes compares Inspect's routing at pos with a reference
// run's: the same experts, probabilities within fp32 noise.
func checkInspectRoutes(t *testing.T, what string, got []trace.Routing, want refMoERun, pos int, cfg Config) {
	t.Helper()
	i := 0
	for l := range cfg.NumHiddenLayers {
		if !cfg.MoE.sparse(l) {
			continue
		}
		if i >= len(got) {
			t.Fatalf("%s: %d routings for more sparse layers", what, len(got))
		}
		g, rt := got[i], want.routes[l][pos]
		i++
		if g.Layer != l || fmt.Sprint(g.IDs) != fmt.Sprint(rt.ids) {
			t.Fatalf("%s, layer %d: experts %v (layer %d), the reference chooses %v", what, l, g.IDs, g.Layer, rt.ids)
		}
		for e, p := range g.Probs {
			if math.Abs(float64(p)-rt.probs[e]) > 1e-5 {
				t.Fatalf("%s, layer %d: p[%d] = %v, reference %v", what, l, e, p, rt.probs[e])
			}
		}
	}
}

// TestMoECounterfactualCache: a run with experts switched off leaves no
// keys and values for the next run to reuse, and does not reuse the
// model's own: each run gives what it gives on a fresh model.
func TestMoECounterfactualCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "olmoe")
	if err := genmodel.Write(dir, "tiny-olmoe", 3, "f32"); err != nil {
		t.Fatal(err)
	}
	load := func() *Model {
		m, err := Load(dir, LoadOptions{Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		return m
	}
	var off []trace.Expert
	for l := range load().Config().NumHiddenLayers {
		off = append(off, trace.Expert{Layer: l, Expert: 0}, trace.Expert{Layer: l, Expert: 1}, trace.Expert{Layer: l, Expert: 2})
	}
	plain := DefaultGenerateOptions()
	plain.Settings.MaxTokens, plain.ReuseCache = 1, true
	cf := plain
	cf.DisableExperts = off
	const prompt = "The experts a token reads, and the ones it does not"
	run := func(m *Model, opt GenerateOptions) *trace.Run {
		r, err := m.Generate(context.Background(), prompt, opt, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for name, order := range map[string][2]GenerateOptions{"counterfactual, then plain": {cf, plain}, "plain, then counterfactual": {plain, cf}} {
		m := load()
		run(m, order[0])
		got, want := run(m, order[1]), run(load(), order[1])
		if got.Timing.ReusedTokens != 0 {
			t.Errorf("%s: %d tokens reused from the other run's cache", name, got.Timing.ReusedTokens)
		}
		g, w := got.Steps[0].Experts, want.Steps[0].Experts
		for i := range w {
			for e := range w[i].Probs {
				if d := math.Abs(float64(g[i].Probs[e] - w[i].Probs[e])); d > 1e-5 {
					t.Fatalf("%s: layer %d p[%d] = %v, on a fresh model %v", name, w[i].Layer, e, g[i].Probs[e], w[i].Probs[e])
				}
			}
		}
	}
}
