package convert

import (
	"fmt"
	"math"

	"loupe/engine/gguf"
	"loupe/engine/safetensors"
)

// Qwen3.5 and Qwen3.5-MoE to GGUF as llama.cpp's converter writes them
// (docs/spec/qwen35.md §3, §6): zero-centred norms stored as 1 + w (not
// the gated norm), A_log as ssm_a = −exp(A_log), the conv kernel squeezed
// to ne [K, C], and the value heads reordered from grouped (value head j
// reads key head j / (n_v/n_k)) to tiled (j mod n_k) in every tensor that
// has them.

// hybrid reports a Qwen3.5 config (layers of two kinds).
func (c hfConfig) hybrid() bool { return c.LinearNumValueHeads > 0 }

// rotaryDim is the width RoPE turns: Qwen3.5's partial_rotary_factor of
// head_dim, else all of it.
func (c hfConfig) rotaryDim() int {
	if c.RopeParameters != nil && c.RopeParameters.PartialRotaryFactor > 0 {
		return int(float64(c.HeadDim) * c.RopeParameters.PartialRotaryFactor)
	}
	return c.HeadDim
}

// pre is tokenizer.ggml.pre: Qwen3.5's pattern has its own name.
func (c hfConfig) pre() string {
	if c.hybrid() {
		return "qwen35"
	}
	return "qwen2"
}

func qwen35Metadata(c hfConfig, a string) []gguf.KV {
	return []gguf.KV{
		{Key: a + "full_attention_interval", Value: uint32(c.FullAttentionInterval)},
		{Key: a + "ssm.conv_kernel", Value: uint32(c.LinearConvKernelDim)},
		{Key: a + "ssm.state_size", Value: uint32(c.LinearKeyHeadDim)},
		{Key: a + "ssm.group_count", Value: uint32(c.LinearNumKeyHeads)},
		{Key: a + "ssm.time_step_rank", Value: uint32(c.LinearNumValueHeads)},
		{Key: a + "ssm.inner_size", Value: uint32(c.LinearNumValueHeads * c.LinearValueHeadDim)},
		// llama.cpp's qwen35 loaders require the MRoPE sections; its converter
		// writes Qwen3.5's [11, 11, 10] (padded to four) when a checkpoint
		// leaves them out. For text all three sections turn the same position.
		{Key: a + "rope.dimension_sections", Value: []int32{11, 11, 10, 0}},
	}
}

// tiledHead is the grouped value head stored at tiled position p.
func (c hfConfig) tiledHead(p int) int {
	nk, r := c.LinearNumKeyHeads, c.LinearNumValueHeads/c.LinearNumKeyHeads
	return (p%nk)*r + p/nk
}

// qwen35GGUFTensors lists the tensors in llama.cpp's names, each read
// whole as f32, changed as the converter changes it, and encoded by
// ggufTensor.
func qwen35GGUFTensors(set *safetensors.Set, c hfConfig, quant string) ([]gguf.WriteTensor, error) {
	pre := "model.language_model."
	var out []gguf.WriteTensor
	add := func(hf, name string, change func(v []float32, shape []int) ([]float32, []int), q string) error {
		t, ok := set.Tensor(hf)
		if !ok {
			return fmt.Errorf("convert: tensor %s is missing", hf)
		}
		v, err := t.F32()
		if err != nil {
			return fmt.Errorf("convert: %w", err)
		}
		v, shape := append([]float32(nil), v...), append([]int(nil), t.Shape...)
		if change != nil {
			v, shape = change(v, shape)
		}
		wt, err := ggufTensor(safetensors.Tensor{Name: hf, DType: "F32", Shape: shape, Data: f32Bytes(v)}, name, c, q)
		if err != nil {
			return err
		}
		out = append(out, wt)
		return nil
	}
	plusOne := func(v []float32, s []int) ([]float32, []int) {
		for i := range v {
			v[i]++
		}
		return v, s
	}
	type entry struct {
		hf, name string
		change   func([]float32, []int) ([]float32, []int)
		q        string
	}
	list := []entry{{pre + "embed_tokens.weight", "token_embd.weight", nil, quant}}
	dv, kd := c.LinearValueHeadDim, c.LinearNumKeyHeads*c.LinearKeyHeadDim
	for i := range c.NumHiddenLayers {
		p, b := fmt.Sprintf("%slayers.%d.", pre, i), fmt.Sprintf("blk.%d.", i)
		list = append(list, entry{p + "input_layernorm.weight", b + "attn_norm.weight", plusOne, quant},
			entry{p + "post_attention_layernorm.weight", b + "post_attention_norm.weight", plusOne, quant})
		if (i+1)%c.FullAttentionInterval == 0 {
			a := p + "self_attn."
			list = append(list, entry{a + "q_proj.weight", b + "attn_q.weight", nil, quant},
				entry{a + "k_proj.weight", b + "attn_k.weight", nil, quant}, entry{a + "v_proj.weight", b + "attn_v.weight", nil, quant},
				entry{a + "o_proj.weight", b + "attn_output.weight", nil, quant},
				entry{a + "q_norm.weight", b + "attn_q_norm.weight", plusOne, quant}, entry{a + "k_norm.weight", b + "attn_k_norm.weight", plusOne, quant})
		} else {
			a := p + "linear_attn."
			rows := func(first, per int) func([]float32, []int) ([]float32, []int) { // value heads of per rows from row first
				return func(v []float32, s []int) ([]float32, []int) { return c.tileRows(v, s, first, per), s }
			}
			list = append(list, entry{a + "in_proj_qkv.weight", b + "attn_qkv.weight", rows(2*kd, dv), quant},
				entry{a + "in_proj_z.weight", b + "attn_gate.weight", rows(0, dv), quant},
				entry{a + "in_proj_b.weight", b + "ssm_beta.weight", rows(0, 1), quant},
				entry{a + "in_proj_a.weight", b + "ssm_alpha.weight", rows(0, 1), quant},
				entry{a + "conv1d.weight", b + "ssm_conv1d.weight", func(v []float32, s []int) ([]float32, []int) {
					return c.tileRows(v, []int{s[0], s[2]}, 2*kd, dv), []int{s[0], s[2]} // [C, 1, K] squeezed
				}, "f32"},
				entry{a + "dt_bias", b + "ssm_dt.bias", rows(0, 1), quant},
				entry{a + "A_log", b + "ssm_a", func(v []float32, s []int) ([]float32, []int) {
					for j, x := range v {
						v[j] = -float32(math.Exp(float64(x)))
					}
					return c.tileRows(v, s, 0, 1), s
				}, quant},
				entry{a + "norm.weight", b + "ssm_norm.weight", nil, quant},
				entry{a + "out_proj.weight", b + "ssm_out.weight", func(v []float32, s []int) ([]float32, []int) {
					return c.tileCols(v, s, dv), s
				}, quant})
		}
		m := p + "mlp."
		if c.NumExperts == 0 {
			list = append(list, entry{m + "gate_proj.weight", b + "ffn_gate.weight", nil, quant},
				entry{m + "up_proj.weight", b + "ffn_up.weight", nil, quant}, entry{m + "down_proj.weight", b + "ffn_down.weight", nil, quant})
			continue
		}
		list = append(list, entry{m + "gate.weight", b + "ffn_gate_inp.weight", nil, "f32"},
			entry{m + "shared_expert.gate_proj.weight", b + "ffn_gate_shexp.weight", nil, quant},
			entry{m + "shared_expert.up_proj.weight", b + "ffn_up_shexp.weight", nil, quant},
			entry{m + "shared_expert.down_proj.weight", b + "ffn_down_shexp.weight", nil, quant},
			entry{m + "shared_expert_gate.weight", b + "ffn_gate_inp_shexp.weight", nil, "f32"})
	}
	list = append(list, entry{pre + "norm.weight", "output_norm.weight", plusOne, quant})
	if !c.TieWordEmbeddings {
		list = append(list, entry{"lm_head.weight", "output.weight", nil, quant})
	}
	for _, e := range list {
		if err := add(e.hf, e.name, e.change, e.q); err != nil {
			return nil, err
		}
	}
	if c.NumExperts > 0 {
		for i := range c.NumHiddenLayers {
			for _, m := range [][2]string{{"gate_proj", "ffn_gate_exps"}, {"up_proj", "ffn_up_exps"}, {"down_proj", "ffn_down_exps"}} {
				wt, err := ggufStacked(set, fmt.Sprintf("%slayers.%d.mlp.experts.*.%s.weight", pre, i, m[0]), fmt.Sprintf("blk.%d.%s.weight", i, m[1]), c, quant)
				if err != nil {
					return nil, err
				}
				out = append(out, wt)
			}
		}
	}
	return out, nil
}

// tileRows reorders the n_v blocks of per rows that start at row first of
// v [shape[0], cols] from grouped to tiled value heads.
func (c hfConfig) tileRows(v []float32, shape []int, first, per int) []float32 {
	cols := len(v) / shape[0]
	out := append([]float32(nil), v...)
	for p := range c.LinearNumValueHeads {
		g := c.tiledHead(p)
		copy(out[(first+p*per)*cols:(first+(p+1)*per)*cols], v[(first+g*per)*cols:(first+(g+1)*per)*cols])
	}
	return out
}

// tileCols reorders the n_v blocks of per columns of v [rows, n_v·per].
func (c hfConfig) tileCols(v []float32, shape []int, per int) []float32 {
	rows, cols := shape[0], shape[1]
	out := make([]float32, len(v))
	for r := range rows {
		for p := range c.LinearNumValueHeads {
			g := c.tiledHead(p)
			copy(out[r*cols+p*per:r*cols+(p+1)*per], v[r*cols+g*per:r*cols+(g+1)*per])
		}
	}
	return out
}
