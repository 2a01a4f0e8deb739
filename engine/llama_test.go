package engine

import (
	"context"
	"fmt"
	"math"
	"testing"

	"loupe/kernels"
)

// llamaConfig is tinyConfig as a Llama: no biases, untied head, llama3
// rope scaling with a short original context so that all three bands of
// docs/spec/llama.md §2 (kept, divided, blended) occur among the 4 frequencies.
func llamaConfig() Config {
	c := tinyConfig()
	c.Architecture, c.ModelType = "LlamaForCausalLM", "llama"
	c.TieWordEmbeddings, c.RMSNormEps = false, 1e-5
	c.RopeLlama3 = &Llama3Rope{Factor: 8, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositions: 64}
	return c
}

// TestLlamaMatchesReference: the Llama forward against the float64
// reference (no biases, llama3 inv_freq), at every kernel level, with the
// Hugging Face Q/K layout (ropeHalf) and with the rows permuted as GGUF
// stores them (ropeMeta).
func TestLlamaMatchesReference(t *testing.T) {
	cfg := llamaConfig()
	inv := refInvFreq(cfg)
	kept, divided := 0, 0
	for i, v := range inv {
		base := math.Pow(cfg.RopeTheta, -float64(2*i)/float64(cfg.HeadDim))
		switch {
		case v == base:
			kept++
		case math.Abs(v*cfg.RopeLlama3.Factor-base) < 1e-15:
			divided++
		}
	}
	if kept == 0 || divided == 0 || kept+divided == len(inv) {
		t.Fatalf("test config does not cover the llama3 bands: %d kept, %d divided of %d", kept, divided, len(inv))
	}
	ref := dropBiases(randomTensors(cfg, 23))
	tokens := randomTokens(30, cfg.VocabSize, 4)
	want := refForward(cfg, ref, tokens, refOptions{})
	forEachLevel(t, func(t *testing.T, l kernels.Level) {
		for _, meta := range []bool{false, true} {
			t.Run(fmt.Sprintf("metaQK=%v", meta), func(t *testing.T) {
				m := memModel(cfg, ref, false, 2)
				if meta {
					permuteQK(m, cfg)
				}
				got, err := m.forward(context.Background(), tokens, 0, &probes{allLogits: true})
				if err != nil {
					t.Fatal(err)
				}
				worst := 0.0
				V := cfg.VocabSize
				for p := range tokens {
					worst = math.Max(worst, maxRelDiff(got[p*V:(p+1)*V], want.logits[p]))
				}
				t.Logf("max relative logit error %.2g", worst)
				if worst > logitTol {
					t.Errorf("logits differ from the float64 reference by %.3g (tolerance %.0g)", worst, logitTol)
				}
			})
		}
	})
}

// permuteQK reorders the Q and K rows of every head into Meta's
// interleaved order (row 2i+j ← row j·d/2+i, convert_hf_to_gguf.py's
// permute) and marks the weights so; ropeMeta must undo it.
func permuteQK(m *Model, cfg Config) {
	d := cfg.HeadDim
	perm := func(w *mat) {
		out := make([]float32, len(w.f))
		for h := 0; h < w.rows/d; h++ {
			for i := range d / 2 {
				for j := range 2 {
					copy(out[(h*d+2*i+j)*w.cols:][:w.cols], w.f[(h*d+j*d/2+i)*w.cols:][:w.cols])
				}
			}
		}
		w.f = out
	}
	for i := range m.w.layers {
		perm(&m.w.layers[i].wq)
		perm(&m.w.layers[i].wk)
	}
	m.w.metaQK = true
}

// TestLlama3InvFreq: docs/spec/llama.md §2's sanity values for Llama-3.2-1B.
func TestLlama3InvFreq(t *testing.T) {
	c := Config{RopeTheta: 500000, HeadDim: 64, RopeLlama3: &Llama3Rope{Factor: 32, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositions: 8192}}
	inv := ropeInvFreq(&c)
	if inv[0] != 1 || math.Abs(inv[31]-9.4183e-08)/9.4183e-08 > 1e-4 {
		t.Errorf("inv_freq[0] = %v, inv_freq[31] = %v; want 1 and 9.4183e-08", inv[0], inv[31])
	}
}

func TestParseLlamaConfig(t *testing.T) {
	c, err := ParseConfig([]byte(`{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 2048,
		"intermediate_size": 8192, "num_hidden_layers": 16, "num_attention_heads": 32, "num_key_value_heads": 8,
		"head_dim": 64, "rms_norm_eps": 1e-05, "rope_theta": 500000.0, "max_position_embeddings": 131072,
		"rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
		"original_max_position_embeddings": 8192, "rope_type": "llama3"}, "tie_word_embeddings": true,
		"vocab_size": 128256, "attention_bias": false, "mlp_bias": false, "hidden_act": "silu"}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Architecture != "LlamaForCausalLM" || c.RopeLlama3 == nil || c.RopeLlama3.Factor != 32 || c.RopeLlama3.OriginalMaxPositions != 8192 {
		t.Errorf("config %+v", c)
	}
	if _, err := ParseConfig([]byte(`{"model_type": "llama", "attention_bias": true}`)); err == nil {
		t.Error("attention_bias true accepted")
	}
}
