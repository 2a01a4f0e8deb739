package engine

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"loupe/engine/convert"
	"loupe/engine/genmodel"
	"loupe/engine/gguf"
)

// moeGGUF writes a generated MoE folder (f32) and its GGUF conversion.
func moeGGUF(t *testing.T, shape, quant string) (dir, file string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), shape)
	if err := genmodel.Write(dir, shape, 4, "f32"); err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(t.TempDir(), shape+"-"+quant+".gguf")
	if err := convert.WriteGGUF(dir, file, quant); err != nil {
		t.Fatal(err)
	}
	return dir, file
}

// TestMoEGGUFMatchesSafetensors: the stacked ffn_*_exps of an F32 GGUF
// give the per-expert safetensors model's logits bit for bit (Qwen3.5 and
// Qwen3.5-MoE, whose value heads llama.cpp tiles: within fp32 noise, and
// reading them grouped is far off); Q8_0 stays within quantisation noise.
func TestMoEGGUFMatchesSafetensors(t *testing.T) {
	for _, shape := range []string{"tiny-olmoe", "tiny-qwen3moe", "tiny-qwen35moe", "tiny-qwen35"} {
		for _, tc := range []struct {
			quant string
			kl    float64 // bound on the mean KL(safetensors ‖ GGUF) per position; 0: identical
		}{{"f32", 0}, {"q8_0", 3e-2}} { // Q8_0: measured 1e-3 (OLMoE) and 1e-2 (Qwen3-MoE: a flipped near-tie)
			t.Run(shape+"/"+tc.quant, func(t *testing.T) {
				dir, file := moeGGUF(t, shape, tc.quant)
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
				if m, s := gg.cfg.MoE, st.cfg.MoE; (m == nil) != (s == nil) || m != nil && (m.Experts != s.Experts || m.TopK != s.TopK || m.ExpertSize != s.ExpertSize || m.SharedSize != s.SharedSize || m.NormTopK != s.NormTopK) {
					t.Fatalf("GGUF MoE config %+v, safetensors %+v", m, s)
				}
				tokens := randomTokens(24, 1000, 3)
				want, got := allLogits(t, st, tokens), allLogits(t, gg, tokens)
				V := st.cfg.VocabSize
				if tc.kl == 0 && gg.cfg.Qwen35 != nil {
					// Tiled value heads reorder ssm_out's columns, so its
					// dot products sum in another order: fp32 noise.
					for p := range tokens {
						if d := maxRelDiff(got[p*V:(p+1)*V], f64(want[p*V:(p+1)*V])); d > logitTol {
							t.Fatalf("position %d: GGUF logits differ from safetensors by %.3g", p, d)
						}
					}
				} else if tc.kl == 0 {
					for i := range want {
						if want[i] != got[i] {
							t.Fatalf("logit %d: GGUF %v, safetensors %v (want identical)", i, got[i], want[i])
						}
					}
				}
				if tc.kl == 0 {
					if q := gg.cfg.Qwen35; q != nil { // the tiled value heads are read as tiled
						q.Linear.Tiled = false
						gg.recur = nil // the state copies the dims: make it anew
						if d := maxRelDiff(allLogits(t, gg, tokens)[:V], f64(want[:V])); d < 100*logitTol {
							t.Errorf("value heads read grouped: logits within %.2g of the right ones", d)
						}
					}
					return
				}
				var kl float64
				for p := range tokens {
					kl += softmaxKL(want[p*V:(p+1)*V], got[p*V:(p+1)*V]) / float64(len(tokens))
				}
				t.Logf("mean KL %.3g nats", kl)
				if kl > tc.kl {
					t.Errorf("mean KL %.3g above the bound %g", kl, tc.kl)
				}
			})
		}
	}
}

func f64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// ggufEdit changes a GGUF file's metadata and tensors.
type ggufEdit func(kv []gguf.KV, ts []gguf.WriteTensor) ([]gguf.KV, []gguf.WriteTensor)

// rewriteGGUF writes f changed by e as a new file.
func rewriteGGUF(t *testing.T, f *gguf.File, e ggufEdit) string {
	var kv []gguf.KV
	for _, k := range f.Keys {
		kv = append(kv, gguf.KV{Key: k, Value: valueOf(t, f, k)})
	}
	var ts []gguf.WriteTensor
	for _, x := range f.Tensors {
		ts = append(ts, gguf.WriteTensor{Name: x.Name, Type: x.Type, Dims: x.Dims, Data: x.Data})
	}
	kv, ts = e(kv, ts)
	p := filepath.Join(t.TempDir(), "bad.gguf")
	if err := gguf.WriteFile(p, kv, ts); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestQwen35GGUFRefusals: a Qwen3.5 file whose ssm_a is not −exp(·), whose
// DeltaNet sizes are missing or do not divide, or that rotates more than
// head_dim, is refused by name.
func TestQwen35GGUFRefusals(t *testing.T) {
	_, good := moeGGUF(t, "tiny-qwen35", "f32")
	f, err := gguf.Open(good)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	setKV := func(key string, v any) ggufEdit {
		return func(kv []gguf.KV, ts []gguf.WriteTensor) ([]gguf.KV, []gguf.WriteTensor) {
			out := kv[:0:0]
			for _, k := range kv {
				if k.Key != key {
					out = append(out, k)
				} else if v != nil {
					out = append(out, gguf.KV{Key: key, Value: v})
				}
			}
			return out, ts
		}
	}
	for _, tc := range []struct {
		name string
		edit ggufEdit
		want string
	}{
		{"ssm_a positive", func(kv []gguf.KV, ts []gguf.WriteTensor) ([]gguf.KV, []gguf.WriteTensor) {
			for i := range ts {
				if ts[i].Name == "blk.0.ssm_a" {
					d := append([]byte(nil), ts[i].Data...)
					d[3] &^= 0x80 // clear the sign of entry 0
					ts[i].Data = d
				}
			}
			return kv, ts
		}, "ssm_a[0]"},
		{"no group count", setKV("qwen35.ssm.group_count", nil), "qwen35.ssm.group_count is missing"},
		{"inner size", setKV("qwen35.ssm.inner_size", uint32(63)), "do not divide"},
		{"rotary beyond head_dim", setKV("qwen35.rope.dimension_count", uint32(64)), "rotary width"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(rewriteGGUF(t, f, tc.edit), LoadOptions{Threads: 1})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestMoEGGUFRefusals: MoE files that parse but disagree with themselves
// or with what the architecture does are refused with the reason.
func TestMoEGGUFRefusals(t *testing.T) {
	_, good := moeGGUF(t, "tiny-olmoe", "f32")
	f, err := gguf.Open(good)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rewrite := func(t *testing.T, e ggufEdit) string { return rewriteGGUF(t, f, e) }
	type edit = ggufEdit
	setKV := func(key string, v any) edit {
		return func(kv []gguf.KV, ts []gguf.WriteTensor) ([]gguf.KV, []gguf.WriteTensor) {
			for i := range kv {
				if kv[i].Key == key {
					kv[i].Value = v
					return kv, ts
				}
			}
			return append(kv, gguf.KV{Key: key, Value: v}), ts
		}
	}
	tensor := func(name string, change func(*gguf.WriteTensor) bool) edit {
		return func(kv []gguf.KV, ts []gguf.WriteTensor) ([]gguf.KV, []gguf.WriteTensor) {
			var out []gguf.WriteTensor
			for _, x := range ts {
				if x.Name != name || change(&x) {
					out = append(out, x)
				}
			}
			return kv, out
		}
	}
	for _, tc := range []struct {
		name string
		edit edit
		want string
		is   error
	}{
		{"k above E", setKV("olmoe.expert_used_count", uint32(9)), "num_experts_per_tok = 9", ErrBadFile},
		{"no expert_count", func(kv []gguf.KV, ts []gguf.WriteTensor) ([]gguf.KV, []gguf.WriteTensor) {
			var out []gguf.KV
			for _, k := range kv {
				if k.Key != "olmoe.expert_count" {
					out = append(out, k)
				}
			}
			return out, ts
		}, "olmoe.expert_count is missing", ErrBadFile},
		{"E disagrees with the tensors", setKV("olmoe.expert_count", uint32(7)), "has shape", ErrBadFile},
		{"renormalised olmoe", setKV("olmoe.expert_weights_norm", true), "expert_weights_norm", ErrUnsupported},
		{"sigmoid gating", setKV("olmoe.expert_gating_func", uint32(2)), "expert_gating_func", ErrUnsupported},
		{"expert groups", setKV("olmoe.expert_group_count", uint32(4)), "expert_group_count", ErrUnsupported},
		{"stack transposed", tensor("blk.0.ffn_down_exps.weight", func(x *gguf.WriteTensor) bool {
			x.Dims = []uint64{x.Dims[1], x.Dims[0], x.Dims[2]}
			return true
		}), "has shape", ErrBadFile},
		{"stack missing", tensor("blk.1.ffn_up_exps.weight", func(*gguf.WriteTensor) bool { return false }), "is missing", ErrBadFile},
		{"router missing", tensor("blk.0.ffn_gate_inp.weight", func(*gguf.WriteTensor) bool { return false }), "is missing", ErrBadFile},
		{"a norm twice", func(kv []gguf.KV, ts []gguf.WriteTensor) ([]gguf.KV, []gguf.WriteTensor) {
			for _, x := range ts {
				if x.Name == "blk.0.ffn_norm.weight" {
					x.Name = "blk.0.post_attention_norm.weight"
					return kv, append(ts, x)
				}
			}
			return kv, ts
		}, "are the same tensor", ErrBadFile},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(rewrite(t, tc.edit), LoadOptions{Threads: 1})
			if err == nil || !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %v containing %q", err, tc.is, tc.want)
			}
		})
	}
	if _, err := Load(good, LoadOptions{Threads: 1}); err != nil {
		t.Fatal(fmt.Errorf("the unedited file: %w", err))
	}
}

// TestMoEGGUFFusedGateUp: a file whose experts' gate and up are one
// ffn_gate_up_exps tensor (llama.cpp's --fuse-gate-up-exps: per expert
// the I gate rows, then the I up rows) gives the unfused file's logits.
func TestMoEGGUFFusedGateUp(t *testing.T) {
	_, file := moeGGUF(t, "tiny-olmoe", "f32")
	f, err := gguf.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fused := rewriteGGUF(t, f, func(kv []gguf.KV, ts []gguf.WriteTensor) ([]gguf.KV, []gguf.WriteTensor) {
		byName := map[string]gguf.WriteTensor{}
		for _, x := range ts {
			byName[x.Name] = x
		}
		var out []gguf.WriteTensor
		for _, x := range ts {
			layer, ok := strings.CutSuffix(x.Name, ".ffn_gate_exps.weight")
			if strings.HasSuffix(x.Name, ".ffn_up_exps.weight") {
				continue
			}
			if !ok {
				out = append(out, x)
				continue
			}
			up := byName[layer+".ffn_up_exps.weight"]
			E, per := int(x.Dims[2]), len(x.Data)/int(x.Dims[2])
			var data []byte
			for e := range E {
				data = append(append(data, x.Data[e*per:(e+1)*per]...), up.Data[e*per:(e+1)*per]...)
			}
			out = append(out, gguf.WriteTensor{Name: layer + ".ffn_gate_up_exps.weight", Type: x.Type,
				Dims: []uint64{x.Dims[0], 2 * x.Dims[1], x.Dims[2]}, Data: data})
		}
		return kv, out
	})
	a, err := Load(file, LoadOptions{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Load(fused, LoadOptions{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tokens := randomTokens(12, 1000, 5)
	want, got := allLogits(t, a, tokens), allLogits(t, b, tokens)
	for i := range want {
		if want[i] != got[i] {
			t.Fatalf("logit %d: fused %v, separate %v", i, got[i], want[i])
		}
	}
}

// TestQwen35GGUFMTPBlock: a Qwen3.5 file as llama.cpp's converter writes it
// from a checkpoint with an MTP head (block_count counts it, nextn_predict_layers
// says how many, blk.<n_layer>.* holds a full-attention layer and its
// nextn.* tensors) runs the trunk alone: the logits of the file without the
// block, and the Model panel names the MTP head as not run. A file whose
// nextn_predict_layers leaves no trunk is refused.
func TestQwen35GGUFMTPBlock(t *testing.T) {
	_, plain := moeGGUF(t, "tiny-qwen35", "f32")
	f, err := gguf.Open(plain)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	layers := int(valueOf(t, f, "qwen35.block_count").(uint32))
	interval := int(valueOf(t, f, "qwen35.full_attention_interval").(uint32))
	full := fmt.Sprintf("blk.%d.", interval-1) // a full-attention layer: the MTP block's shapes
	withMTP := func(nextn uint32) ggufEdit {
		return func(kv []gguf.KV, ts []gguf.WriteTensor) ([]gguf.KV, []gguf.WriteTensor) {
			for i := range kv {
				if kv[i].Key == "qwen35.block_count" {
					kv[i].Value = uint32(layers + 1)
				}
			}
			kv = append(kv, gguf.KV{Key: "qwen35.nextn_predict_layers", Value: nextn})
			mtp := fmt.Sprintf("blk.%d.", layers)
			for _, x := range ts {
				if strings.HasPrefix(x.Name, full) {
					x.Name = mtp + strings.TrimPrefix(x.Name, full)
					ts = append(ts, x)
				}
			}
			norm, _ := f.Tensor("output_norm.weight")
			for _, n := range []string{"nextn.enorm.weight", "nextn.hnorm.weight"} {
				ts = append(ts, gguf.WriteTensor{Name: mtp + n, Type: norm.Type, Dims: norm.Dims, Data: norm.Data})
			}
			return kv, ts
		}
	}
	want, err := Load(plain, LoadOptions{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer want.Close()
	got, err := Load(rewriteGGUF(t, f, withMTP(1)), LoadOptions{Threads: 2})
	if err != nil {
		t.Fatalf("a file with an MTP block: %v", err)
	}
	defer got.Close()
	if got.cfg.NumHiddenLayers != layers {
		t.Fatalf("%d layers run, want the trunk's %d", got.cfg.NumHiddenLayers, layers)
	}
	tokens := randomTokens(12, 1000, 5)
	w, g := allLogits(t, want, tokens), allLogits(t, got, tokens)
	for i := range w {
		if w[i] != g[i] {
			t.Fatalf("logit %d: %v with the MTP block, %v without", i, g[i], w[i])
		}
	}
	if nu := got.Info().NotUsed; !slices.Contains(nu, "MTP head") {
		t.Errorf("parts not run %q, want the MTP head named", nu)
	}
	_, err = Load(rewriteGGUF(t, f, withMTP(uint32(layers+1))), LoadOptions{Threads: 1})
	if err == nil || !strings.Contains(err.Error(), "nextn_predict_layers") {
		t.Fatalf("nextn_predict_layers = block_count: error %v, want one naming the key", err)
	}
}
