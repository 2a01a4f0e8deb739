package engine

// A plain float64 Qwen3.5 forward written from docs/spec/qwen35.md §2–§5, sharing no
// code with the engine: the recurrent form of Gated DeltaNet, token by
// token, and gated attention over the whole sequence. It is the oracle of
// the Qwen3.5 tests.

import (
	"fmt"
	"math"
	"math/rand/v2"

	"loupe/engine/deltanet"
	"loupe/kernels"
)

// tinyQwen35 is a small hybrid shape: 4 layers (full attention at 1 and 3,
// i.e. interval 2), 4 query heads on 2 kv heads of 16 dims with 8 of them
// rotated, and DeltaNet with n_v = 4 value heads on n_k = 2 key heads
// (n_v ≠ n_k, the grouping the 2B model does not exercise).
func tinyQwen35() Config {
	c := Config{
		Architecture: "Qwen3_5ForConditionalGeneration", ModelType: "qwen3_5",
		HiddenSize: 32, IntermediateSize: 48, NumHiddenLayers: 4,
		NumAttentionHeads: 4, NumKeyValueHeads: 2, HeadDim: 16,
		RMSNormEps: 1e-6, RopeTheta: 10_000_000, MaxPositionEmbeddings: 512,
		TieWordEmbeddings: true, VocabSize: 97, EOSTokenIDs: []int{96}, RotaryDim: 8,
		Qwen35: &Qwen35Config{
			LayerTypes:          []string{LinearAttention, FullAttention, LinearAttention, FullAttention},
			Linear:              deltanet.Dims{NK: 2, NV: 4, DK: 8, DV: 12, Conv: 4},
			PartialRotaryFactor: 0.5,
		},
	}
	return c
}

// qwen35Tensor is one tensor of the checkpoint: name, shape, and how it is
// drawn (mean + std·N(0,1), rounded to bf16 so both sides see the same
// numbers).
type qwen35Tensor struct {
	name      string
	shape     []int
	mean, std float64
}

// qwen35TensorList is every tensor docs/spec/qwen35.md §4–§6 names for the text
// decoder, under prefix ("model.language_model." or "model.").
func qwen35TensorList(c Config, prefix string) []qwen35Tensor {
	q := c.Qwen35
	h, I, V, d := c.HiddenSize, c.IntermediateSize, c.VocabSize, c.HeadDim
	H, KV, ln := c.NumAttentionHeads, c.NumKeyValueHeads, q.Linear
	fan := func(n int) float64 { return 1 / math.Sqrt(float64(n)) }
	ts := []qwen35Tensor{{prefix + "embed_tokens.weight", []int{V, h}, 0, 1}}
	for i, typ := range q.LayerTypes {
		p := fmt.Sprintf("%slayers.%d.", prefix, i)
		ts = append(ts,
			qwen35Tensor{p + "input_layernorm.weight", []int{h}, 0, 0.1}, // zero-centred: scale 1 + w
			qwen35Tensor{p + "post_attention_layernorm.weight", []int{h}, 0, 0.1},
			qwen35Tensor{p + "mlp.gate_proj.weight", []int{I, h}, 0, fan(h)},
			qwen35Tensor{p + "mlp.up_proj.weight", []int{I, h}, 0, fan(h)},
			qwen35Tensor{p + "mlp.down_proj.weight", []int{h, I}, 0, fan(I)},
		)
		if typ == FullAttention {
			a := p + "self_attn."
			ts = append(ts,
				qwen35Tensor{a + "q_proj.weight", []int{2 * H * d, h}, 0, 2 * fan(h)},
				qwen35Tensor{a + "k_proj.weight", []int{KV * d, h}, 0, 2 * fan(h)},
				qwen35Tensor{a + "v_proj.weight", []int{KV * d, h}, 0, fan(h)},
				qwen35Tensor{a + "o_proj.weight", []int{h, H * d}, 0, fan(H * d)},
				qwen35Tensor{a + "q_norm.weight", []int{d}, 0, 0.1},
				qwen35Tensor{a + "k_norm.weight", []int{d}, 0, 0.1},
			)
			continue
		}
		a := p + "linear_attn."
		ts = append(ts,
			qwen35Tensor{a + "in_proj_qkv.weight", []int{ln.ConvDim(), h}, 0, fan(h)},
			qwen35Tensor{a + "in_proj_z.weight", []int{ln.ValueDim(), h}, 0, fan(h)},
			qwen35Tensor{a + "in_proj_b.weight", []int{ln.NV, h}, 0, fan(h)},
			qwen35Tensor{a + "in_proj_a.weight", []int{ln.NV, h}, 0, fan(h)},
			qwen35Tensor{a + "conv1d.weight", []int{ln.ConvDim(), 1, ln.Conv}, 0, 0.5},
			qwen35Tensor{a + "dt_bias", []int{ln.NV}, 0, 0.5},
			qwen35Tensor{a + "A_log", []int{ln.NV}, 0, 0.7},
			qwen35Tensor{a + "norm.weight", []int{ln.DV}, 1, 0.1}, // plain weight, around 1
			qwen35Tensor{a + "out_proj.weight", []int{h, ln.ValueDim()}, 0, fan(ln.ValueDim())},
		)
	}
	ts = append(ts, qwen35Tensor{prefix + "norm.weight", []int{h}, 0, 0.1})
	if !c.TieWordEmbeddings {
		ts = append(ts, qwen35Tensor{"lm_head.weight", []int{V, h}, 0, fan(h)})
	}
	return ts
}

// randomQwen35 draws every tensor of the model, bf16-exact.
func randomQwen35(c Config, prefix string, seed uint64) refTensors {
	rng := rand.New(rand.NewPCG(seed, 35))
	r := refTensors{val: map[string][]float64{}, shape: map[string][]int{}}
	for _, t := range qwen35TensorList(c, prefix) {
		n := 1
		for _, s := range t.shape {
			n *= s
		}
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(kernels.FromFloat32(float32(t.mean + t.std*rng.NormFloat64())).Float32())
		}
		r.val[t.name], r.shape[t.name] = v, t.shape
	}
	return r
}

// ref35Run is what the reference computes for a whole sequence.
type ref35Run struct {
	logits    [][]float64     // [T][V]
	attn      [][][][]float64 // [L][H][T][keys 0…t]; nil for DeltaNet layers
	alpha     [][][]float64   // [L][T][n_v] decay; nil for attention layers
	beta      [][][]float64   // [L][T][n_v] write strength
	stateNorm [][][]float64   // [L][T][n_v] ‖S‖ after token t
}

// ref35Forward runs tokens at positions 0…T−1 from a zero state.
func ref35Forward(c Config, w refTensors, prefix string, tokens []int) ref35Run {
	q := c.Qwen35
	h, T := c.HiddenSize, len(tokens)
	x := make([][]float64, T)
	for t, id := range tokens {
		x[t] = append([]float64(nil), w.val[prefix+"embed_tokens.weight"][id*h:(id+1)*h]...)
	}
	var run ref35Run
	for l, typ := range q.LayerTypes {
		p := fmt.Sprintf("%slayers.%d.", prefix, l)
		xn := make([][]float64, T)
		for t := range T {
			xn[t] = ref35Norm1p(x[t], w.val[p+"input_layernorm.weight"], c.RMSNormEps)
		}
		var mix [][]float64
		if typ == FullAttention {
			var probs [][][]float64
			mix, probs = ref35Attention(c, w, p+"self_attn.", xn)
			run.attn = append(run.attn, probs)
			run.alpha, run.beta, run.stateNorm = append(run.alpha, nil), append(run.beta, nil), append(run.stateNorm, nil)
		} else {
			var al, be, sn [][]float64
			mix, al, be, sn = ref35DeltaNet(c, w, p+"linear_attn.", xn)
			run.attn = append(run.attn, nil)
			run.alpha, run.beta, run.stateNorm = append(run.alpha, al), append(run.beta, be), append(run.stateNorm, sn)
		}
		for t := range T {
			x[t] = refAdd(x[t], mix[t])
			f := ref35MLP(w, p, ref35Norm1p(x[t], w.val[p+"post_attention_layernorm.weight"], c.RMSNormEps))
			x[t] = refAdd(x[t], f)
		}
	}
	out := "lm_head.weight"
	if c.TieWordEmbeddings {
		out = prefix + "embed_tokens.weight"
	}
	for t := range T {
		xf := ref35Norm1p(x[t], w.val[prefix+"norm.weight"], c.RMSNormEps)
		run.logits = append(run.logits, refLinear(w.val[out], nil, xf))
	}
	return run
}

// ref35Norm1p is Qwen3_5RMSNorm: x / sqrt(mean(x²) + eps) · (1 + w).
func ref35Norm1p(x, w []float64, eps float64) []float64 {
	var ms float64
	for _, v := range x {
		ms += v * v
	}
	ms /= float64(len(x))
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = v / math.Sqrt(ms+eps) * (1 + w[i])
	}
	return y
}

// ref35Attention is the gated attention of docs/spec/qwen35.md §4 for every row:
// per-head interleaved query|gate, q/k norms, partial RoPE, causal GQA,
// sigmoid output gate, o_proj. It returns the outputs and the softmax
// probabilities [H][T][t+1].
func ref35Attention(c Config, w refTensors, p string, xn [][]float64) ([][]float64, [][][]float64) {
	T, d, H, KV := len(xn), c.HeadDim, c.NumAttentionHeads, c.NumKeyValueHeads
	q, gate, k, v := make([][]float64, T), make([][]float64, T), make([][]float64, T), make([][]float64, T)
	for t := range T {
		qg := refLinear(w.val[p+"q_proj.weight"], nil, xn[t]) // [H·2d]
		kt := refLinear(w.val[p+"k_proj.weight"], nil, xn[t])
		v[t] = refLinear(w.val[p+"v_proj.weight"], nil, xn[t])
		for j := range H { // head j: query qg[j·2d, j·2d+d), gate qg[j·2d+d, (j+1)·2d)
			qj := ref35Norm1p(qg[j*2*d:j*2*d+d], w.val[p+"q_norm.weight"], c.RMSNormEps)
			q[t] = append(q[t], ref35RoPE(qj, t, c.RotaryDim, c.RopeTheta)...)
			gate[t] = append(gate[t], qg[j*2*d+d:(j+1)*2*d]...)
		}
		for j := range KV {
			kj := ref35Norm1p(kt[j*d:(j+1)*d], w.val[p+"k_norm.weight"], c.RMSNormEps)
			k[t] = append(k[t], ref35RoPE(kj, t, c.RotaryDim, c.RopeTheta)...)
		}
	}
	probs, out := make([][][]float64, H), make([][]float64, T)
	for t := range T {
		o := make([]float64, H*d)
		for qh := range H {
			kvh := qh / (H / KV)
			s := make([]float64, t+1)
			for j := range t + 1 {
				for i := range d {
					s[j] += q[t][qh*d+i] * k[j][kvh*d+i]
				}
				s[j] /= math.Sqrt(float64(d))
			}
			s = refSoftmax(s)
			probs[qh] = append(probs[qh], s)
			for j := range t + 1 {
				for i := range d {
					o[qh*d+i] += s[j] * v[j][kvh*d+i]
				}
			}
		}
		for i := range o {
			o[i] *= 1 / (1 + math.Exp(-gate[t][i]))
		}
		out[t] = refLinear(w.val[p+"o_proj.weight"], nil, o)
	}
	return out, probs
}

// ref35RoPE rotates dims 0…rd−1 of one head in half-split pairs
// (i, i + rd/2) by pos·θ^(−2i/rd); dims rd… pass through.
func ref35RoPE(x []float64, pos, rd int, theta float64) []float64 {
	y := append([]float64(nil), x...)
	for i := range rd / 2 {
		a := float64(pos) * math.Pow(theta, -float64(2*i)/float64(rd))
		cs, sn := math.Cos(a), math.Sin(a)
		y[i] = x[i]*cs - x[i+rd/2]*sn
		y[i+rd/2] = x[i+rd/2]*cs + x[i]*sn
	}
	return y
}

// ref35DeltaNet is the Gated DeltaNet of docs/spec/qwen35.md §5.1, token by token
// from a zero state. It returns the outputs and, per token and value
// head, α, β and the state's Frobenius norm after the update.
func ref35DeltaNet(c Config, w refTensors, p string, xn [][]float64) (out, alpha, beta, norm [][]float64) {
	ln, T := c.Qwen35.Linear, len(xn)
	K, C, kd := ln.Conv, ln.ConvDim(), ln.KeyDim()
	m := make([][]float64, T)
	for t := range T {
		m[t] = refLinear(w.val[p+"in_proj_qkv.weight"], nil, xn[t])
	}
	S := make([][][]float64, ln.NV) // [n_v][d_k][d_v]
	for j := range S {
		S[j] = make([][]float64, ln.DK)
		for i := range S[j] {
			S[j][i] = make([]float64, ln.DV)
		}
	}
	cw := w.val[p+"conv1d.weight"] // [C, 1, K]
	for t := range T {
		z := refLinear(w.val[p+"in_proj_z.weight"], nil, xn[t])
		b := refLinear(w.val[p+"in_proj_b.weight"], nil, xn[t])
		a := refLinear(w.val[p+"in_proj_a.weight"], nil, xn[t])
		cv := make([]float64, C)
		for ch := range C { // tap K−1 is the current token; zeros before the sequence
			var s float64
			for j := range K {
				if src := t - (K - 1) + j; src >= 0 {
					s += cw[ch*K+j] * m[src][ch]
				}
			}
			cv[ch] = s / (1 + math.Exp(-s))
		}
		y := make([]float64, ln.ValueDim())
		al, be, sn := make([]float64, ln.NV), make([]float64, ln.NV), make([]float64, ln.NV)
		for j := range ln.NV {
			kh := j / (ln.NV / ln.NK)
			qv := ref35L2(cv[kh*ln.DK:(kh+1)*ln.DK], 1/math.Sqrt(float64(ln.DK)))
			kv := ref35L2(cv[kd+kh*ln.DK:kd+(kh+1)*ln.DK], 1)
			vv := cv[2*kd+j*ln.DV : 2*kd+(j+1)*ln.DV]
			be[j] = 1 / (1 + math.Exp(-b[j]))
			x := a[j] + w.val[p+"dt_bias"][j]
			sp := math.Log1p(math.Exp(x))
			if x > 20 {
				sp = x
			}
			al[j] = math.Exp(-math.Exp(w.val[p+"A_log"][j]) * sp)
			o := ref35DeltaStep(S[j], qv, kv, vv, al[j], be[j])
			copy(y[j*ln.DV:], ref35GatedNorm(o, z[j*ln.DV:(j+1)*ln.DV], w.val[p+"norm.weight"], c.RMSNormEps))
			for _, row := range S[j] {
				for _, s := range row {
					sn[j] += s * s
				}
			}
			sn[j] = math.Sqrt(sn[j])
		}
		out = append(out, refLinear(w.val[p+"out_proj.weight"], nil, y))
		alpha, beta, norm = append(alpha, al), append(beta, be), append(norm, sn)
	}
	return out, alpha, beta, norm
}

// ref35DeltaStep: S ← αS; δ = β(v − Sᵀk); S ← S + kδᵀ; return Sᵀq.
func ref35DeltaStep(S [][]float64, q, k, v []float64, alpha, beta float64) []float64 {
	dk, dv := len(S), len(S[0])
	for i := range dk {
		for c := range dv {
			S[i][c] *= alpha
		}
	}
	for c := range dv {
		var r float64
		for i := range dk {
			r += S[i][c] * k[i]
		}
		d := beta * (v[c] - r)
		for i := range dk {
			S[i][c] += k[i] * d
		}
	}
	o := make([]float64, dv)
	for c := range dv {
		for i := range dk {
			o[c] += S[i][c] * q[i]
		}
	}
	return o
}

// ref35L2 is x / sqrt(Σx² + 1e-6) · scale.
func ref35L2(x []float64, scale float64) []float64 {
	var ss float64
	for _, v := range x {
		ss += v * v
	}
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = v / math.Sqrt(ss+1e-6) * scale
	}
	return y
}

// ref35GatedNorm is Qwen3_5RMSNormGated: w · x/rms(x) · silu(z), w plain.
func ref35GatedNorm(x, z, w []float64, eps float64) []float64 {
	var ms float64
	for _, v := range x {
		ms += v * v
	}
	ms /= float64(len(x))
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = w[i] * v / math.Sqrt(ms+eps) * z[i] / (1 + math.Exp(-z[i]))
	}
	return y
}

// ref35MLP is down(silu(gate(x))·up(x)).
func ref35MLP(w refTensors, p string, xn []float64) []float64 {
	g := refLinear(w.val[p+"mlp.gate_proj.weight"], nil, xn)
	u := refLinear(w.val[p+"mlp.up_proj.weight"], nil, xn)
	for i := range g {
		g[i] = g[i] / (1 + math.Exp(-g[i])) * u[i]
	}
	return refLinear(w.val[p+"mlp.down_proj.weight"], nil, g)
}
