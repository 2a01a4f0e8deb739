package genmodel

import (
	"math"
	"strconv"
	"testing"

	"loupe/engine/safetensors"
)

// forwardOne is a float64 Qwen2 forward pass (docs/spec/qwen2.md §3) for a single
// token at position 0: attention over one position puts probability 1 on
// it, so each query head's output is its KV head's value vector and RoPE
// (angle 0) is the identity. It returns the logits.
func forwardOne(t *testing.T, s *safetensors.Set, sh Shape, token int) []float64 {
	w := func(name string) []float64 {
		tn, ok := s.Tensor(name)
		if !ok {
			t.Fatalf("missing %s", name)
		}
		v, err := tn.F32()
		if err != nil {
			t.Fatal(err)
		}
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = float64(x)
		}
		return out
	}
	h, d := sh.HiddenSize, sh.HeadDim()
	emb := w("model.embed_tokens.weight")
	x := append([]float64(nil), emb[token*h:(token+1)*h]...)
	for l := range sh.NumHiddenLayers {
		p := "model.layers." + strconv.Itoa(l) + "."
		xn := rmsNorm(x, w(p+"input_layernorm.weight"))
		v := linear(w(p+"self_attn.v_proj.weight"), w(p+"self_attn.v_proj.bias"), xn)
		rep := sh.NumAttentionHeads / sh.NumKeyValueHeads
		concat := make([]float64, 0, sh.NumAttentionHeads*d)
		for qh := range sh.NumAttentionHeads {
			kvh := qh / rep
			concat = append(concat, v[kvh*d:(kvh+1)*d]...)
		}
		add(x, linear(w(p+"self_attn.o_proj.weight"), nil, concat))
		xn = rmsNorm(x, w(p+"post_attention_layernorm.weight"))
		g := linear(w(p+"mlp.gate_proj.weight"), nil, xn)
		u := linear(w(p+"mlp.up_proj.weight"), nil, xn)
		for i := range g {
			g[i] = g[i] / (1 + math.Exp(-g[i])) * u[i]
		}
		add(x, linear(w(p+"mlp.down_proj.weight"), nil, g))
	}
	return linear(emb, nil, rmsNorm(x, w("model.norm.weight")))
}

func rmsNorm(x, weight []float64) []float64 {
	ms := 0.0
	for _, v := range x {
		ms += v * v
	}
	inv := 1 / math.Sqrt(ms/float64(len(x))+1e-6)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v * inv * weight[i]
	}
	return out
}

// linear is y = x·Wᵀ + b with W [len(y), len(x)].
func linear(wt, b, x []float64) []float64 {
	y := make([]float64, len(wt)/len(x))
	for r := range y {
		s := 0.0
		for c, v := range x {
			s += wt[r*len(x)+c] * v
		}
		if b != nil {
			s += b[r]
		}
		y[r] = s
	}
	return y
}

func add(x, y []float64) {
	for i := range x {
		x[i] += y[i]
	}
}

// The tiny model's next-token distribution must be informative: the top
// token well above uniform but far from one-hot, and not always the input
// token itself.
func TestTinyLogitsNotDegenerate(t *testing.T) {
	s, err := safetensors.Open(writeTiny(t, 1, "bf16"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sh, _ := Lookup("tiny")
	V := float64(sh.VocabSize)
	self := 0
	for _, tok := range []int{9707, 151643, 42, 100000} { // "Hello", <|endoftext|>, …
		z := forwardOne(t, s, sh, tok)
		m, best := math.Inf(-1), 0
		for i, v := range z {
			if v > m {
				m, best = v, i
			}
		}
		sum, ent := 0.0, 0.0
		for _, v := range z {
			sum += math.Exp(v - m)
		}
		for _, v := range z {
			p := math.Exp(v-m) / sum
			if p > 0 {
				ent -= p * math.Log(p)
			}
		}
		pmax := 1 / sum
		t.Logf("token %d: top %d P %.4f, entropy %.2f nats (uniform %.2f)", tok, best, pmax, ent, math.Log(V))
		if pmax < 20/V || pmax > 0.5 || ent > math.Log(V)-0.5 || ent < 1 {
			t.Errorf("token %d: degenerate distribution: P_max %.4g, entropy %.3f", tok, pmax, ent)
		}
		if best == tok {
			self++
		}
	}
	if self == 4 {
		t.Error("the model always predicts its input token")
	}
}
