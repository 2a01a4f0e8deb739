package engine

// A plain float64 Qwen2 forward written from docs/spec/qwen2.md §3, sharing no code
// with forward.go, and a tiny random model to run both on.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"loupe/engine/safetensors"
	"loupe/kernels"
)

// tinyConfig is a small Qwen2 shape: 2 layers, 4 query heads sharing 2 kv
// heads (n_rep = 2), head_dim 8.
func tinyConfig() Config {
	return Config{
		Architecture: "Qwen2ForCausalLM", ModelType: "qwen2",
		HiddenSize: 32, IntermediateSize: 48, NumHiddenLayers: 2,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, HeadDim: 8,
		RMSNormEps: 1e-6, RopeTheta: 10000, MaxPositionEmbeddings: 256,
		TieWordEmbeddings: true, VocabSize: 97, EOSTokenIDs: []int{96},
	}
}

// refTensors is a model's tensors by safetensors name, as float64 values
// that bf16 holds exactly, with their shapes.
type refTensors struct {
	val   map[string][]float64
	shape map[string][]int
}

// randomTensors draws every tensor of cfg (docs/spec/qwen2.md §2): matrices N(0, 0.3²)
// and biases N(0, 0.1²) rounded to bf16, norms 1 + N(0, 0.1²).
func randomTensors(cfg Config, seed uint64) refTensors {
	rng := rand.New(rand.NewPCG(seed, 1))
	r := refTensors{val: map[string][]float64{}, shape: map[string][]int{}}
	add := func(name string, scale, offset float64, shape ...int) {
		n := 1
		for _, s := range shape {
			n *= s
		}
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(kernels.FromFloat32(float32(offset + scale*rng.NormFloat64())).Float32())
		}
		r.val[name], r.shape[name] = v, shape
	}
	h, I, V, d := cfg.HiddenSize, cfg.IntermediateSize, cfg.VocabSize, cfg.HeadDim
	qDim, kvDim := cfg.NumAttentionHeads*d, cfg.NumKeyValueHeads*d
	add("model.embed_tokens.weight", 1, 0, V, h)
	for i := range cfg.NumHiddenLayers {
		p := fmt.Sprintf("model.layers.%d.", i)
		add(p+"input_layernorm.weight", 0.1, 1, h)
		add(p+"self_attn.q_proj.weight", 0.3, 0, qDim, h)
		add(p+"self_attn.q_proj.bias", 0.1, 0, qDim)
		add(p+"self_attn.k_proj.weight", 0.3, 0, kvDim, h)
		add(p+"self_attn.k_proj.bias", 0.1, 0, kvDim)
		add(p+"self_attn.v_proj.weight", 0.3, 0, kvDim, h)
		add(p+"self_attn.v_proj.bias", 0.1, 0, kvDim)
		add(p+"self_attn.o_proj.weight", 0.3, 0, h, qDim)
		add(p+"post_attention_layernorm.weight", 0.1, 1, h)
		add(p+"mlp.gate_proj.weight", 0.3, 0, I, h)
		add(p+"mlp.up_proj.weight", 0.3, 0, I, h)
		add(p+"mlp.down_proj.weight", 0.3, 0, h, I)
	}
	add("model.norm.weight", 0.1, 1, h)
	if !cfg.TieWordEmbeddings {
		add("lm_head.weight", 0.3, 0, V, h)
	}
	return r
}

// refRun is what the reference computes for a whole sequence.
type refRun struct {
	logits [][]float64     // [T][V]
	attn   [][][][]float64 // [L][H][T][keys 0…t]
	mlp    [][][]float64   // [L][T][I] silu(gate)·up
	resid  [][][]float64   // [L][T][h] residual stream after layer l's MLP
	keys   [][][]float64   // [L][T][KV·d] keys after RoPE
	vals   [][][]float64   // [L][T][KV·d] values
}

// refOptions changes the reference: heads whose output is zeroed.
// lastOnly computes the logits of the last position only. roundIn, when
// set, replaces the input of every layer matrix (q/k/v, o, gate/up, down;
// not lm_head) by what a kernel would multiply instead: an emulation of
// lower-precision activation schemes (bf16scheme_test.go).
type refOptions struct {
	ablate   map[[2]int]bool
	lastOnly bool
	roundIn  func(x []float64) []float64
}

// in is x as the layer matrices see it under opt.roundIn.
func (opt refOptions) in(x []float64) []float64 {
	if opt.roundIn == nil {
		return x
	}
	return opt.roundIn(x)
}

// refForward runs tokens at positions 0…T-1, all at once, in float64.
func refForward(cfg Config, w refTensors, tokens []int, opt refOptions) refRun {
	h := cfg.HiddenSize
	T := len(tokens)
	x := make([][]float64, T)
	for t, id := range tokens {
		x[t] = append([]float64(nil), w.val["model.embed_tokens.weight"][id*h:(id+1)*h]...)
	}
	var run refRun
	for l := range cfg.NumHiddenLayers {
		p := fmt.Sprintf("model.layers.%d.", l)
		attnOut, probs, k, v := refAttention(cfg, w, p, l, x, opt)
		run.attn = append(run.attn, probs)
		run.keys, run.vals = append(run.keys, k), append(run.vals, v)
		acts := make([][]float64, T)
		for t := range T {
			x[t] = refAdd(x[t], attnOut[t])
			var f []float64
			f, acts[t] = refMLP(cfg, w, p, x[t], opt)
			x[t] = refAdd(x[t], f)
		}
		run.mlp = append(run.mlp, acts)
		resid := make([][]float64, T)
		for t := range T {
			resid[t] = append([]float64(nil), x[t]...)
		}
		run.resid = append(run.resid, resid)
	}
	out := "lm_head.weight"
	if cfg.TieWordEmbeddings {
		out = "model.embed_tokens.weight"
	}
	for t := range T {
		if opt.lastOnly && t < T-1 {
			run.logits = append(run.logits, nil)
			continue
		}
		xf := refRMSNorm(x[t], w.val["model.norm.weight"], cfg.RMSNormEps)
		run.logits = append(run.logits, refLinear(w.val[out], nil, xf))
	}
	return run
}

// refAttention returns o_proj(attention) for every row, the softmax
// probabilities [H][T][t+1], and the keys (after RoPE) and values [T][KV·d].
func refAttention(cfg Config, w refTensors, p string, l int, x [][]float64, opt refOptions) (_ [][]float64, _ [][][]float64, k, v [][]float64) {
	T, d, H := len(x), cfg.HeadDim, cfg.NumAttentionHeads
	nRep := H / cfg.NumKeyValueHeads
	q := make([][]float64, T)
	k, v = make([][]float64, T), make([][]float64, T)
	for t := range T {
		xn := opt.in(refRMSNorm(x[t], w.val[p+"input_layernorm.weight"], cfg.RMSNormEps))
		qp := refLinear(w.val[p+"self_attn.q_proj.weight"], w.val[p+"self_attn.q_proj.bias"], xn)
		kp := refLinear(w.val[p+"self_attn.k_proj.weight"], w.val[p+"self_attn.k_proj.bias"], xn)
		if cfg.ModelType == "qwen3" { // QK-norm before RoPE (docs/spec/qwen3.md §1 item 3)
			qp = refHeadNorm(qp, w.val[p+"self_attn.q_norm.weight"], cfg.RMSNormEps)
			kp = refHeadNorm(kp, w.val[p+"self_attn.k_norm.weight"], cfg.RMSNormEps)
		}
		q[t] = refRoPE(qp, t, d, refInvFreq(cfg))
		k[t] = refRoPE(kp, t, d, refInvFreq(cfg))
		v[t] = refLinear(w.val[p+"self_attn.v_proj.weight"], w.val[p+"self_attn.v_proj.bias"], xn)
	}
	probs := make([][][]float64, H)
	out := make([][]float64, T)
	for t := range T {
		concat := make([]float64, H*d)
		for qh := range H {
			kvh := qh / nRep
			s := make([]float64, t+1)
			for j := range t + 1 {
				for i := range d {
					s[j] += q[t][qh*d+i] * k[j][kvh*d+i]
				}
				s[j] /= math.Sqrt(float64(d))
			}
			s = refSoftmax(s)
			probs[qh] = append(probs[qh], s)
			if opt.ablate[[2]int{l, qh}] {
				continue
			}
			for j := range t + 1 {
				for i := range d {
					concat[qh*d+i] += s[j] * v[j][kvh*d+i]
				}
			}
		}
		out[t] = refLinear(w.val[p+"self_attn.o_proj.weight"], nil, opt.in(concat))
	}
	return out, probs, k, v
}

// refMLP returns down(silu(gate)·up) of post_attention_layernorm(x) and the
// activation silu(gate)·up.
func refMLP(cfg Config, w refTensors, p string, x []float64, opt refOptions) (out, act []float64) {
	xn := opt.in(refRMSNorm(x, w.val[p+"post_attention_layernorm.weight"], cfg.RMSNormEps))
	g := refLinear(w.val[p+"mlp.gate_proj.weight"], nil, xn)
	u := refLinear(w.val[p+"mlp.up_proj.weight"], nil, xn)
	act = make([]float64, len(g))
	for i := range g {
		act[i] = g[i] / (1 + math.Exp(-g[i])) * u[i]
	}
	return refLinear(w.val[p+"mlp.down_proj.weight"], nil, opt.in(act)), act
}

// refLinear is y = x·Wᵀ + b with W [out, in].
func refLinear(W, b, x []float64) []float64 {
	n := len(x)
	y := make([]float64, len(W)/n)
	for o := range y {
		for i := range n {
			y[o] += W[o*n+i] * x[i]
		}
		if b != nil {
			y[o] += b[o]
		}
	}
	return y
}

func refRMSNorm(x, w []float64, eps float64) []float64 {
	var ms float64
	for _, v := range x {
		ms += v * v
	}
	ms /= float64(len(x))
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = v / math.Sqrt(ms+eps) * w[i]
	}
	return y
}

// refHeadNorm is refRMSNorm of every head (len(w) values) of x.
func refHeadNorm(x, w []float64, eps float64) []float64 {
	var y []float64
	for o := 0; o < len(x); o += len(w) {
		y = append(y, refRMSNorm(x[o:o+len(w)], w, eps)...)
	}
	return y
}

// refInvFreq is inv_freq [d/2]: θ^(-2i/d), with rope_type llama3 as
// docs/spec/llama.md §2 writes it, in float64 throughout.
func refInvFreq(cfg Config) []float64 {
	d := cfg.HeadDim
	inv := make([]float64, d/2)
	for i := range inv {
		inv[i] = math.Pow(cfg.RopeTheta, -float64(2*i)/float64(d))
		if l := cfg.RopeLlama3; l != nil {
			wavelen := 2 * math.Pi / inv[i]
			lowWL, highWL := l.OriginalMaxPositions/l.LowFreqFactor, l.OriginalMaxPositions/l.HighFreqFactor
			if wavelen > lowWL {
				inv[i] /= l.Factor
			} else if wavelen >= highWL {
				s := (l.OriginalMaxPositions/wavelen - l.LowFreqFactor) / (l.HighFreqFactor - l.LowFreqFactor)
				inv[i] = (1-s)*inv[i]/l.Factor + s*inv[i]
			}
		}
		if i < len(cfg.RopeFreqFactors) {
			inv[i] /= float64(cfg.RopeFreqFactors[i])
		}
	}
	return inv
}

// refRoPE rotates every head of x in half-split pairs (i, i+d/2) by
// pos·inv[i], computed in float64 throughout.
func refRoPE(x []float64, pos, d int, inv []float64) []float64 {
	y := make([]float64, len(x))
	for o := 0; o < len(x); o += d {
		for i := range d / 2 {
			a := float64(pos) * inv[i]
			c, s := math.Cos(a), math.Sin(a)
			y[o+i] = x[o+i]*c - x[o+i+d/2]*s
			y[o+i+d/2] = x[o+i+d/2]*c + x[o+i]*s
		}
	}
	return y
}

func refSoftmax(s []float64) []float64 {
	m := math.Inf(-1)
	for _, v := range s {
		m = math.Max(m, v)
	}
	var z float64
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = math.Exp(v - m)
		z += out[i]
	}
	for i := range out {
		out[i] /= z
	}
	return out
}

func refAdd(a, b []float64) []float64 {
	y := make([]float64, len(a))
	for i := range a {
		y[i] = a[i] + b[i]
	}
	return y
}

// refLens is the logit lens of the reference: each layer's residual at
// position t through the final norm and the output head, as softmax
// probabilities [L][V].
func refLens(cfg Config, w refTensors, run refRun, t int) [][]float64 {
	out := "lm_head.weight"
	if cfg.TieWordEmbeddings {
		out = "model.embed_tokens.weight"
	}
	var lens [][]float64
	for _, r := range run.resid {
		xf := refRMSNorm(r[t], w.val["model.norm.weight"], cfg.RMSNormEps)
		lens = append(lens, refSoftmax(refLinear(w.val[out], nil, xf)))
	}
	return lens
}

// readRefTensors reads a model folder or .safetensors file as float64
// tensors (bf16, f16 and f32 widen exactly).
func readRefTensors(t *testing.T, path string) refTensors {
	t.Helper()
	set, err := safetensors.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	r := refTensors{val: map[string][]float64{}, shape: map[string][]int{}}
	for _, name := range set.Names() {
		ts, _ := set.Tensor(name)
		f, err := ts.F32()
		if err != nil {
			t.Fatal(err)
		}
		v := make([]float64, len(f))
		for i, x := range f {
			v[i] = float64(x)
		}
		r.val[name], r.shape[name] = v, ts.Shape
	}
	return r
}
