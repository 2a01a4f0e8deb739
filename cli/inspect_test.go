package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func inspectCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = Main(append([]string{"inspect"}, args...), &o, &e)
	return code, o.String(), e.String()
}

// The --json object has the documented fields, with their shapes:
// embedding [h], attention [L][H][N+1], logit_lens [L][5]{id,text,p},
// mlp {layer, values [I]}, kv {layer, kv_head, keys/values [N+1][d]}.
func TestInspectJSONShape(t *testing.T) {
	dir := tinyDir(t)
	code, out, errs := inspectCLI("--model", dir, "--prompt", "Once upon a time there", "--pos", "3", "--layer", "1", "--kv-head", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out)
	}
	var (
		emb  []float64
		attn [][][]float64
		lens [][]struct {
			ID   *int     `json:"id"`
			Text *string  `json:"text"`
			P    *float64 `json:"p"`
		}
		mlp struct {
			Layer  *int      `json:"layer"`
			Values []float64 `json:"values"`
		}
		kv struct {
			Layer  *int        `json:"layer"`
			KVHead *int        `json:"kv_head"`
			Keys   [][]float64 `json:"keys"`
			Values [][]float64 `json:"values"`
		}
	)
	for name, v := range map[string]any{"embedding": &emb, "attention": &attn, "logit_lens": &lens, "mlp": &mlp, "kv": &kv} {
		raw, ok := r[name]
		if !ok {
			t.Fatalf("no %q field in %s", name, out[:min(200, len(out))])
		}
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// genmodel's tiny shape: hidden 64, 2 layers; read the rest from the data.
	if len(emb) != 64 {
		t.Errorf("embedding has %d numbers, want hidden 64", len(emb))
	}
	if len(attn) != 2 || len(attn[0]) == 0 || len(attn[1][0]) != 4 {
		t.Fatalf("attention shape %d × ? × ?, want [2][H][4]", len(attn))
	}
	for _, heads := range attn {
		for _, w := range heads {
			s := 0.0
			for _, x := range w {
				s += x
			}
			if len(w) != 4 || s < 0.999 || s > 1.001 {
				t.Fatalf("attention row %v does not sum to 1 over positions 0…3", w)
			}
		}
	}
	if len(lens) != 2 {
		t.Fatalf("logit_lens over %d layers, want 2", len(lens))
	}
	for l, top := range lens {
		if len(top) != 5 || top[0].ID == nil || top[0].Text == nil || top[0].P == nil || *top[0].P < *top[4].P {
			t.Fatalf("logit_lens[%d] = %+v, want 5 {id, text, p} by p", l, top)
		}
	}
	if mlp.Layer == nil || *mlp.Layer != 1 || len(mlp.Values) == 0 {
		t.Errorf("mlp layer %v with %d values", mlp.Layer, len(mlp.Values))
	}
	if kv.Layer == nil || *kv.Layer != 1 || kv.KVHead == nil || *kv.KVHead != 1 || len(kv.Keys) != 4 || len(kv.Values) != 4 ||
		len(kv.Keys[0]) == 0 || len(kv.Keys[0]) != len(kv.Values[3]) {
		t.Errorf("kv: layer %v head %v, %d key rows, %d value rows", kv.Layer, kv.KVHead, len(kv.Keys), len(kv.Values))
	}
}

func TestInspectBadArguments(t *testing.T) {
	dir := tinyDir(t)
	for _, args := range [][]string{
		{"--pos", "99"}, {"--pos", "-2"}, {"--pos", "x"}, {"--layer", "2"}, {"--layer", "-1"}, {"--kv-head", "9"}, {"--threads", "-1"}, {"--bogus"},
	} {
		code, out, errs := inspectCLI(append([]string{"--model", dir, "--prompt", "Once upon a time", "--json"}, args...)...)
		if code != 1 || out != "" || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.HasPrefix(errs, "loupe inspect: ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want one line and exit 1", args, code, out, errs)
		}
	}
}

// Without --model the demo model is inspected, as `loupe run` does.
func TestInspectDemoModel(t *testing.T) {
	code, out, errs := inspectCLI("--prompt", "First Citizen:", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r inspectResult
	if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Embedding) == 0 || len(r.LogitLens) == 0 {
		t.Fatalf("demo inspect: %v, %d numbers", err, len(r.Embedding))
	}
}
