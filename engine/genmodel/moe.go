package genmodel

import (
	"encoding/json"
	"math"
	"strconv"
)

// MoEShape is what a mixture-of-experts shape adds (docs/spec/moe.md §3).
type MoEShape struct {
	Experts    int  // E
	TopK       int  // k
	ExpertSize int  // I of each expert
	SharedSize int  // I_s of the shared expert (Qwen3.5-MoE); 0: none
	NormTopK   bool // norm_topk_prob (Qwen3-MoE)
}

// MoE shapes: tiny ones for tests (the real vocabulary, E 8, k 2) and
// OLMoE-1B-7B's for speed. Every shape uses the Qwen tokenizers, so their
// vocabularies are Qwen's: olmoe-1b-7b has OLMoE's layers with 151,936
// embedding rows instead of 50,304.
func init() {
	shapes["tiny-olmoe"] = Shape{Family: "olmoe", HiddenSize: 64, IntermediateSize: 32, NumHiddenLayers: 2,
		NumAttentionHeads: 4, NumKeyValueHeads: 4, VocabSize: 151936, MaxPositionEmbeddings: 4096,
		MoE: &MoEShape{Experts: 8, TopK: 2, ExpertSize: 32}}
	shapes["olmoe-1b-7b"] = Shape{Family: "olmoe", HiddenSize: 2048, IntermediateSize: 1024, NumHiddenLayers: 16,
		NumAttentionHeads: 16, NumKeyValueHeads: 16, VocabSize: 151936, MaxPositionEmbeddings: 4096,
		MoE: &MoEShape{Experts: 64, TopK: 8, ExpertSize: 1024}}
	shapes["tiny-qwen3moe"] = Shape{Family: "qwen3_moe", HiddenSize: 64, IntermediateSize: 128, NumHiddenLayers: 2,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, ExplicitHeadDim: 32, VocabSize: 151936,
		MaxPositionEmbeddings: 4096, MaxWindowLayers: 2, MoE: &MoEShape{Experts: 8, TopK: 2, ExpertSize: 32, NormTopK: true}}
	shapes["tiny-qwen35moe"] = Shape{Family: "qwen3_5_moe", HiddenSize: 64, IntermediateSize: 32, NumHiddenLayers: 4,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, ExplicitHeadDim: 32, VocabSize: 248320, MaxPositionEmbeddings: 4096,
		Hybrid: &HybridShape{FullAttentionInterval: 2, LinearNumKeyHeads: 2, LinearNumValueHeads: 4,
			LinearKeyHeadDim: 16, LinearValueHeadDim: 16, LinearConvKernelDim: 4, PartialRotaryFactor: 0.25},
		MoE: &MoEShape{Experts: 8, TopK: 2, ExpertSize: 32, SharedSize: 64, NormTopK: true}}
}

// router draws router rows wider than other matrices (std 3/√h) so that
// the routing is far from uniform, as a trained router's is.
func router(h int) initRule { return initRule{0, 3 / math.Sqrt(float64(h))} }

// moeTensors lists a sparse layer's FFN under p ("…layers.i.mlp."), with
// per-expert names as the Hub's OLMoE and Qwen3-MoE checkpoints have them.
func (s Shape) moeTensors(p string) []TensorSpec {
	h, m := s.HiddenSize, s.MoE
	out := []TensorSpec{{p + "gate.weight", []int{m.Experts, h}, router(h)}}
	for e := range m.Experts {
		q := p + "experts." + strconv.Itoa(e) + "."
		out = append(out,
			TensorSpec{q + "gate_proj.weight", []int{m.ExpertSize, h}, matrix(h)},
			TensorSpec{q + "up_proj.weight", []int{m.ExpertSize, h}, matrix(h)},
			TensorSpec{q + "down_proj.weight", []int{h, m.ExpertSize}, matrix(m.ExpertSize)})
	}
	if m.SharedSize > 0 {
		q := p + "shared_expert."
		out = append(out,
			TensorSpec{q + "gate_proj.weight", []int{m.SharedSize, h}, matrix(h)},
			TensorSpec{q + "up_proj.weight", []int{m.SharedSize, h}, matrix(h)},
			TensorSpec{q + "down_proj.weight", []int{h, m.SharedSize}, matrix(m.SharedSize)},
			TensorSpec{p + "shared_expert_gate.weight", []int{1, h}, matrix(h)})
	}
	return out
}

// withMoE replaces each layer's dense mlp.{gate,up,down}_proj in dense by
// the MoE block.
func (s Shape) withMoE(dense []TensorSpec) []TensorSpec {
	var out []TensorSpec
	for _, t := range dense {
		if p, ok := cutSuffix(t.Name, "mlp.gate_proj.weight"); ok {
			out = append(out, s.moeTensors(p+"mlp.")...)
			continue
		}
		if _, ok := cutSuffix(t.Name, "mlp.up_proj.weight"); ok {
			continue
		}
		if _, ok := cutSuffix(t.Name, "mlp.down_proj.weight"); ok {
			continue
		}
		out = append(out, t)
	}
	return out
}

// olmoeTensors: Llama's tensors with full-width q_norm [H·d] and k_norm
// [KV·d], and the MoE block in every layer.
func (s Shape) olmoeTensors() []TensorSpec {
	llama := s
	llama.Family = "llama"
	var out []TensorSpec
	qd, kvd := s.NumAttentionHeads*s.HeadDim(), s.NumKeyValueHeads*s.HeadDim()
	for _, t := range llama.withMoE(llama.Tensors()) {
		out = append(out, t)
		if p, ok := cutSuffix(t.Name, "self_attn.v_proj.weight"); ok {
			out = append(out, TensorSpec{p + "self_attn.q_norm.weight", []int{qd}, norm()},
				TensorSpec{p + "self_attn.k_norm.weight", []int{kvd}, norm()})
		}
	}
	return out
}

func cutSuffix(s, suffix string) (string, bool) {
	if len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix {
		return s[:len(s)-len(suffix)], true
	}
	return s, false
}

// olmoeConfigFields are OlmoeForCausalLM's config.json fields.
func olmoeConfigFields(s Shape, torch string) map[string]any {
	return map[string]any{
		"architectures": []string{"OlmoeForCausalLM"}, "attention_bias": false, "attention_dropout": json.Number("0.0"),
		"bos_token_id": bosTokenID, "clip_qkv": nil, "eos_token_id": eosTokenID, "hidden_act": "silu",
		"hidden_size": s.HiddenSize, "initializer_range": json.Number("0.02"), "intermediate_size": s.MoE.ExpertSize,
		"max_position_embeddings": s.MaxPositionEmbeddings, "model_type": "olmoe", "norm_topk_prob": false,
		"num_attention_heads": s.NumAttentionHeads, "num_experts": s.MoE.Experts, "num_experts_per_tok": s.MoE.TopK,
		"num_hidden_layers": s.NumHiddenLayers, "num_key_value_heads": s.NumKeyValueHeads,
		"output_router_logits": false, "rms_norm_eps": json.Number("1e-05"), "rope_scaling": nil,
		"rope_theta": json.Number("10000.0"), "router_aux_loss_coef": json.Number("0.01"),
		"tie_word_embeddings": false, "torch_dtype": torch, "transformers_version": "4.46.0",
		"use_cache": true, "vocab_size": s.VocabSize,
	}
}

// qwen3moeConfigFields are Qwen3's fields and Qwen3MoeConfig's.
func qwen3moeConfigFields(s Shape, torch string) map[string]any {
	c := qwen3ConfigFields(s, torch)
	c["architectures"], c["model_type"] = []string{"Qwen3MoeForCausalLM"}, "qwen3_moe"
	c["decoder_sparse_step"], c["mlp_only_layers"] = 1, []int{}
	c["moe_intermediate_size"], c["norm_topk_prob"] = s.MoE.ExpertSize, s.MoE.NormTopK
	c["num_experts"], c["num_experts_per_tok"] = s.MoE.Experts, s.MoE.TopK
	c["output_router_logits"], c["router_aux_loss_coef"] = false, json.Number("0.001")
	return c
}

// qwen35moeConfigFields are Qwen3.5's wrapper with the experts in
// text_config (no intermediate_size, as in 35B-A3B's file).
func qwen35moeConfigFields(s Shape, torch string) map[string]any {
	c := qwen35ConfigFields(s, torch)
	c["architectures"], c["model_type"] = []string{"Qwen3_5MoeForConditionalGeneration"}, "qwen3_5_moe"
	text := c["text_config"].(map[string]any)
	delete(text, "intermediate_size")
	text["model_type"] = "qwen3_5_moe_text"
	text["moe_intermediate_size"], text["shared_expert_intermediate_size"] = s.MoE.ExpertSize, s.MoE.SharedSize
	text["num_experts"], text["num_experts_per_tok"] = s.MoE.Experts, s.MoE.TopK
	text["router_aux_loss_coef"] = json.Number("0.001")
	return c
}
