package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"loupe/kernels"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"loupe/engine/convert"
	"loupe/engine/genmodel"
	"loupe/engine/gguf"
	"loupe/engine/safetensors"
)

// llamaEdit turns writeModel's Qwen2 folder into a Llama one: no biases,
// model_type llama.
func llamaEdit(conf map[string]any, ts map[string]*safetensors.Tensor) {
	conf["architectures"], conf["model_type"] = []string{"LlamaForCausalLM"}, "llama"
	conf["rms_norm_eps"] = 1e-5
	for name := range ts {
		if strings.HasSuffix(name, ".bias") {
			delete(ts, name)
		}
	}
}

func dropBiases(ref refTensors) refTensors {
	for name := range ref.val {
		if strings.HasSuffix(name, ".bias") {
			delete(ref.val, name)
			delete(ref.shape, name)
		}
	}
	return ref
}

// lastLogits runs tokens through m and returns the logits of every
// position.
func allLogits(t *testing.T, m *Model, tokens []int) []float32 {
	t.Helper()
	got, err := m.forward(context.Background(), tokens, 0, &probes{allLogits: true})
	if err != nil {
		t.Fatal(err)
	}
	return append([]float32(nil), got...)
}

// TestGGUFMatchesSafetensors: a model converted to GGUF the llama.cpp way
// gives the same logits as the safetensors folder — bit for bit in F32 and
// BF16 (the same kernels on the same values; for llama, ropeMeta on the
// permuted Q/K rows against ropeHalf on the original ones), within a stated
// bound for Q8_0 and Q4_K_M.
func TestGGUFMatchesSafetensors(t *testing.T) {
	cfg := tinyConfig()
	cfg.HiddenSize, cfg.IntermediateSize, cfg.HeadDim = 256, 512, 64 // K-quant blocks need 256 columns
	cfg.NumAttentionHeads, cfg.NumKeyValueHeads = 4, 2
	cfg.VocabSize, cfg.EOSTokenIDs = smallVocab+8, []int{0}
	tokens := randomTokens(20, smallVocab, 5)
	for _, arch := range []string{"qwen2", "llama"} {
		for _, tied := range []bool{arch == "qwen2"} {
			c := cfg
			c.TieWordEmbeddings = tied
			ref := quietTensors(randomTensors(c, 17))
			var edit func(map[string]any, map[string]*safetensors.Tensor)
			if arch == "llama" {
				edit, c.RMSNormEps, ref = llamaEdit, 1e-5, dropBiases(ref)
			}
			for _, tc := range []struct {
				src, quant string
				kl         float64 // bound on the mean KL(safetensors ‖ GGUF) per position, nats
			}{{"F32", "f32", 0}, {"BF16", "bf16", 0}, {"BF16", "q8_0", 3e-3}, {"BF16", "q4_k_m", 0.4}, {"BF16", "q5_k_m", 0.2}} {
				t.Run(fmt.Sprintf("%s/tied=%v/%s", arch, tied, tc.quant), func(t *testing.T) {
					dir := writeModel(t, c, ref, tc.src, edit)
					writeSmallTokenizer(t, dir)
					file := filepath.Join(t.TempDir(), "m.gguf")
					if err := convert.WriteGGUF(dir, file, tc.quant); err != nil {
						t.Fatal(err)
					}
					st, err := Load(dir, LoadOptions{Threads: 2})
					if err != nil {
						t.Fatal(err)
					}
					defer st.Close()
					gg, err := Load(file, LoadOptions{Threads: 2})
					if err != nil {
						t.Fatal(err)
					}
					defer gg.Close()
					if gg.cfg.Architecture != st.cfg.Architecture || gg.cfg.TieWordEmbeddings != tied || gg.w.metaQK != (arch == "llama") {
						t.Fatalf("GGUF config %+v", gg.cfg)
					}
					if a, b := gg.Encode("Hello, world!"), st.Encode("Hello, world!"); fmt.Sprint(a) != fmt.Sprint(b) {
						t.Errorf("GGUF tokenizer %v, tokenizer.json %v", a, b)
					}
					want, got := allLogits(t, st, tokens), allLogits(t, gg, tokens)
					V := c.VocabSize
					var kl float64
					same := 0
					for p := range tokens {
						kl += softmaxKL(want[p*V:(p+1)*V], got[p*V:(p+1)*V]) / float64(len(tokens))
						if argmax32(want[p*V:(p+1)*V]) == argmax32(got[p*V:(p+1)*V]) {
							same++
						}
					}
					t.Logf("mean KL %.3g nats, top-1 agrees at %d/%d positions; GGUF %s reads %d bytes per token, safetensors %s %d",
						kl, same, len(tokens), tc.quant, gg.info.WeightBytesPerTok, tc.src, st.info.WeightBytesPerTok)
					if tc.kl == 0 {
						for i := range want {
							if want[i] != got[i] {
								t.Fatalf("logit %d: GGUF %v, safetensors %v (want identical)", i, got[i], want[i])
							}
						}
					} else if kl > tc.kl {
						t.Errorf("mean KL %.3g above the bound %g", kl, tc.kl)
					}
					if tc.kl > 0 { // the quantised path against f32 copies of its own dequantised weights, activations exact
						defer kernels.SetExact(kernels.Exact())
						kernels.SetExact(true)
						got := allLogits(t, gg, tokens)
						deq := allLogits(t, dequantised(gg), tokens)
						worst := 0.0
						for p := range tokens {
							w64 := make([]float64, V)
							for i, v := range deq[p*V : (p+1)*V] {
								w64[i] = float64(v)
							}
							worst = math.Max(worst, maxRelDiff(got[p*V:(p+1)*V], w64))
						}
						t.Logf("against the dequantised f32 model: max relative logit difference %.2g", worst)
						if worst > 1e-4 {
							t.Errorf("quantised kernels differ from their dequantised weights by %.3g", worst)
						}
					}
				})
			}
		}
	}
}

// smallVocab is the size of writeSmallTokenizer's vocabulary.
const smallVocab = 600

// writeSmallTokenizer replaces dir's tokenizer.json by the Qwen one cut to
// its first smallVocab ids (the 256 bytes and the merges among them) and no
// added tokens, so a model needs an embedding of only smallVocab rows.
func writeSmallTokenizer(t *testing.T, dir string) {
	t.Helper()
	raw, err := tokenizerJSON()
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	model := f["model"].(map[string]any)
	vocab := map[string]any{}
	for k, id := range model["vocab"].(map[string]any) {
		if id.(float64) < smallVocab {
			vocab[k] = id
		}
	}
	var merges []any
	for _, m := range model["merges"].([]any) {
		ab := m.([]any)
		a, b := ab[0].(string), ab[1].(string)
		if vocab[a] != nil && vocab[b] != nil && vocab[a+b] != nil {
			merges = append(merges, m)
		}
	}
	model["vocab"], model["merges"], f["added_tokens"] = vocab, merges, []any{}
	out, _ := json.Marshal(f)
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// quietTensors scales the matrices by 1/4 and the embedding by 1/8 (exact
// in bf16): std 0.075 ≈ 1.2/√h at h = 256, so activations stay near unit
// scale and logits near std 2 as in a trained model, instead of a chaotic
// net that amplifies any rounding.
func quietTensors(ref refTensors) refTensors {
	for name, v := range ref.val {
		scale := 0.25
		if name == "model.embed_tokens.weight" {
			scale = 0.125 // logits of std ≈ 2 from a normed hidden state
		}
		if len(ref.shape[name]) == 2 {
			for i := range v {
				v[i] *= scale
			}
		}
	}
	return ref
}

// dequantised copies m with every quantised matrix widened to f32 (the
// values DequantRow gives), to check the quantised kernels end to end.
func dequantised(m *Model) *Model {
	widen := func(w mat) mat {
		if w.q == nil {
			return w
		}
		out := mat{rows: w.rows, cols: w.cols, f: make([]float32, w.rows*w.cols)}
		for r := range w.rows {
			w.row(out.f[r*w.cols:(r+1)*w.cols], r)
		}
		return out
	}
	w := m.w
	w.embed, w.output = widen(w.embed), widen(w.output)
	w.layers = append([]layerWeights(nil), w.layers...)
	for i := range w.layers {
		lw := &w.layers[i]
		for _, p := range []*mat{&lw.wq, &lw.wk, &lw.wv, &lw.wo, &lw.wGate, &lw.wUp, &lw.wDown} {
			*p = widen(*p)
		}
	}
	return newModel(m.cfg, w, 2)
}

// softmaxKL is KL(p‖q) of the softmax of two logit rows, in nats.
func softmaxKL(p, q []float32) float64 {
	lse := func(x []float32) float64 {
		m := math.Inf(-1)
		for _, v := range x {
			m = math.Max(m, float64(v))
		}
		var z float64
		for _, v := range x {
			z += math.Exp(float64(v) - m)
		}
		return m + math.Log(z)
	}
	lp, lq := lse(p), lse(q)
	var kl float64
	for i := range p {
		a := float64(p[i]) - lp
		kl += math.Exp(a) * (a - (float64(q[i]) - lq))
	}
	return kl
}

func argmax32(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// TestLoadGGUFRefusals: files that parse but do not describe a model we
// run are refused with the reason.
func TestLoadGGUFRefusals(t *testing.T) {
	cfg := tinyConfig()
	cfg.VocabSize, cfg.EOSTokenIDs = smallVocab, []int{0}
	ref := randomTensors(cfg, 3)
	dir := writeModel(t, cfg, ref, "F32", nil)
	writeSmallTokenizer(t, dir)
	good := filepath.Join(t.TempDir(), "m.gguf")
	if err := convert.WriteGGUF(dir, good, "f32"); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(good)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rewrite := func(t *testing.T, edit func(kv []gguf.KV, ts []gguf.WriteTensor) ([]gguf.KV, []gguf.WriteTensor)) string {
		var kv []gguf.KV
		for _, k := range f.Keys {
			kv = append(kv, gguf.KV{Key: k, Value: valueOf(t, f, k)})
		}
		var ts []gguf.WriteTensor
		for _, x := range f.Tensors {
			ts = append(ts, gguf.WriteTensor{Name: x.Name, Type: x.Type, Dims: x.Dims, Data: x.Data})
		}
		kv, ts = edit(kv, ts)
		p := filepath.Join(t.TempDir(), "bad.gguf")
		if err := gguf.WriteFile(p, kv, ts); err != nil {
			t.Fatal(err)
		}
		return p
	}
	setKV := func(key string, v any) func([]gguf.KV, []gguf.WriteTensor) ([]gguf.KV, []gguf.WriteTensor) {
		return func(kv []gguf.KV, ts []gguf.WriteTensor) ([]gguf.KV, []gguf.WriteTensor) {
			for i := range kv {
				if kv[i].Key == key {
					kv[i].Value = v
				}
			}
			return kv, ts
		}
	}
	for _, tc := range []struct {
		name string
		edit func([]gguf.KV, []gguf.WriteTensor) ([]gguf.KV, []gguf.WriteTensor)
		want string
		is   error
	}{
		{"architecture", setKV("general.architecture", "mamba"), `GGUF architecture "mamba"`, ErrUnsupported},
		{"block_count type", setKV("qwen2.block_count", "two"), "want an integer", ErrBadFile},
		{"block_count range", setKV("qwen2.block_count", uint32(100000)), "outside [1, 512]", ErrBadFile},
		{"heads", setKV("qwen2.attention.head_count_kv", uint32(3)), "not a multiple", ErrBadFile},
		{"pre-tokenizer", setKV("tokenizer.ggml.pre", "gpt-4o"), `tokenizer.ggml.pre "gpt-4o"`, ErrBadFile},
		{"merges", setKV("tokenizer.ggml.merges", []string{"nospace"}), `tokenizer vocabulary (tokenizer.ggml.*): tokenizer.ggml.merges[0] "nospace"`, ErrBadFile},
		{"scores type", setKV("tokenizer.ggml.token_type", []float32{1}), "want an array of integers", ErrBadFile},
		{"missing layer", func(kv []gguf.KV, ts []gguf.WriteTensor) ([]gguf.KV, []gguf.WriteTensor) {
			return kv, ts[:len(ts)-2]
		}, "is missing", ErrBadFile},
		{"extra layer", setKV("qwen2.block_count", uint32(1)), "beyond block_count", ErrBadFile},
		{"shape", func(kv []gguf.KV, ts []gguf.WriteTensor) ([]gguf.KV, []gguf.WriteTensor) {
			for i := range ts {
				if ts[i].Name == "blk.0.attn_k.weight" {
					ts[i].Dims = []uint64{ts[i].Dims[1], ts[i].Dims[0]}
				}
			}
			return kv, ts
		}, "has shape", ErrBadFile},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(rewrite(t, tc.edit), LoadOptions{Threads: 1})
			if err == nil || !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %v containing %q", err, tc.is, tc.want)
			}
		})
	}
}

// valueOf reads back any metadata value for rewriting.
func valueOf(t *testing.T, f *gguf.File, key string) any {
	v := f.KV[key]
	switch v.Type {
	case gguf.TypeString:
		s, _, _ := f.String(key)
		return s
	case gguf.TypeFloat32:
		x, _, _ := f.Float(key)
		return float32(x)
	case gguf.TypeBool:
		b, _, _ := f.Bool(key)
		return b
	case gguf.TypeUint32:
		n, _, _ := f.Int(key, 0, math.MaxUint32)
		return uint32(n)
	case gguf.TypeArray:
		switch v.Elem {
		case gguf.TypeString:
			s, _, _ := f.Strings(key)
			return s
		case gguf.TypeInt32:
			x, _, _ := f.Ints(key, math.MinInt32, math.MaxInt32)
			out := make([]int32, len(x))
			for i, n := range x {
				out[i] = int32(n)
			}
			return out
		}
	}
	t.Fatalf("key %s: type %v not handled", key, v.Type)
	return nil
}

// A GGUF file is known by its magic, whatever its name: Ollama keeps its
// models as blobs/sha256-… with no extension. It loads as the same file
// named .gguf does; a file of other bytes without an extension is refused.
func TestLoadGGUFByMagic(t *testing.T) {
	src := filepath.Join(t.TempDir(), "tiny")
	if err := genmodel.Write(src, "tiny", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	named := filepath.Join(t.TempDir(), "m.gguf")
	if err := convert.WriteGGUF(src, named, "q8_0"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(named)
	if err != nil {
		t.Fatal(err)
	}
	blob := filepath.Join(t.TempDir(), "sha256-2f3a")
	if err := os.WriteFile(blob, data, 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := Load(named, LoadOptions{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Load(blob, LoadOptions{Threads: 1})
	if err != nil {
		t.Fatalf("a GGUF file without the .gguf extension: %v", err)
	}
	defer b.Close()
	tokens := a.Encode("Once upon a time")
	if got, want := allLogits(t, b, tokens), allLogits(t, a, tokens); !slices.Equal(got, want) {
		t.Error("the blob's logits differ from the .gguf file's")
	}
	other := filepath.Join(t.TempDir(), "sha256-9c1d")
	if err := os.WriteFile(other, append([]byte("GGUX"), data[4:]...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(other, LoadOptions{Threads: 1}); !errors.Is(err, ErrBadFile) {
		t.Errorf("a file without the magic or an extension: %v, want ErrBadFile", err)
	}
}
