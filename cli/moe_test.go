package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"loupe/engine/genmodel"
	"loupe/engine/perf"
	"loupe/engine/safetensors"
)

// routing is one entry of the experts list, with every field required.
type routing struct {
	Layer   *int      `json:"layer"`
	IDs     []int     `json:"ids"`
	Weights []float64 `json:"weights"`
	Probs   []float64 `json:"probs"`
}

// checkRouting: one entry per MoE layer, in order; k ids best first
// (probs descending), distinct; weights as the family applies them (sum 1
// when renormalised, the chosen probs when not); probs summing to 1.
func checkRouting(t *testing.T, what string, list []routing, layers, E, k int, norm bool) {
	t.Helper()
	if len(list) != layers {
		t.Fatalf("%s: %d experts entries, want %d MoE layers", what, len(list), layers)
	}
	for l, r := range list {
		if r.Layer == nil || *r.Layer != l || len(r.IDs) != k || len(r.Weights) != k || len(r.Probs) != E {
			t.Fatalf("%s: entry %d: %+v", what, l, r)
		}
		var sum, wsum float64
		for _, p := range r.Probs {
			sum += p
		}
		for i, id := range r.IDs {
			wsum += r.Weights[i]
			if i > 0 && r.Probs[id] > r.Probs[r.IDs[i-1]] {
				t.Errorf("%s layer %d: ids %v not best first", what, l, r.IDs)
			}
			if !norm && math.Abs(r.Weights[i]-r.Probs[id]) > 1e-6 {
				t.Errorf("%s layer %d: weight %v of expert %d, p %v", what, l, r.Weights[i], id, r.Probs[id])
			}
		}
		if math.Abs(sum-1) > 1e-5 || norm && math.Abs(wsum-1) > 1e-5 {
			t.Errorf("%s layer %d: probs sum to %v, weights to %v", what, l, sum, wsum)
		}
	}
}

// The experts lists of run --json (per generated token) and inspect
// --json, on generated models of each MoE family.
func TestMoEJSON(t *testing.T) {
	for _, tc := range []struct {
		shape     string
		layers, E int
		k         int
		norm      bool
	}{{"tiny-olmoe", 2, 8, 2, false}, {"tiny-qwen3moe", 2, 8, 2, true}, {"tiny-qwen35moe", 4, 8, 2, true}} {
		t.Run(tc.shape, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), tc.shape)
			if err := genmodel.Write(dir, tc.shape, 2, "bf16"); err != nil {
				t.Fatal(err)
			}
			for _, tok := range runRouting(t, "--model", dir, "--prompt", "Which experts", "--max-tokens", "3", "--json") {
				checkRouting(t, "run", tok, tc.layers, tc.E, tc.k, tc.norm)
			}
			code, out, errs := inspectCLI("--model", dir, "--prompt", "Which experts", "--pos", "1", "--json")
			if code != 0 {
				t.Fatalf("inspect: exit %d: %s", code, errs)
			}
			var in struct {
				Experts []routing `json:"experts"`
			}
			if err := json.Unmarshal([]byte(out), &in); err != nil {
				t.Fatal(err)
			}
			checkRouting(t, "inspect", in.Experts, tc.layers, tc.E, tc.k, tc.norm)
		})
	}
}

// inspect --disable-experts and --top-k-experts: the position's routing
// under the counterfactual is the one run computes for the last prompt
// token under the same flags (Generate's prefill against Inspect's decode
// step), never runs an expert switched off, and the JSON records the
// flags; flags the model cannot run are refused.
func TestInspectCounterfactual(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "olmoe")
	if err := genmodel.Write(dir, "tiny-olmoe", 2, "f32"); err != nil {
		t.Fatal(err)
	}
	const prompt = "Which experts run here"
	inspectExperts := func(args ...string) (r struct {
		Experts        []routing `json:"experts"`
		DisableExperts []struct {
			Layer, Expert int
		} `json:"disable_experts"`
		TopKExperts int `json:"top_k_experts"`
	}) {
		t.Helper()
		code, out, errs := inspectCLI(append([]string{"--model", dir, "--prompt", prompt, "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("inspect %v: exit %d: %s", args, code, errs)
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	plain := inspectExperts()
	checkRouting(t, "plain", plain.Experts, 2, 8, 2, false)
	off := fmt.Sprintf("0:%d,1:%d", plain.Experts[0].IDs[0], plain.Experts[1].IDs[0])
	cf := inspectExperts("--disable-experts", off, "--top-k-experts", "1")
	checkRouting(t, "counterfactual", cf.Experts, 2, 8, 1, false)
	if len(cf.DisableExperts) != 2 || cf.DisableExperts[1].Layer != 1 || cf.TopKExperts != 1 {
		t.Errorf("JSON records disable_experts %v, top_k_experts %d", cf.DisableExperts, cf.TopKExperts)
	}
	for l, want := range runRouting(t, "--model", dir, "--prompt", prompt, "--max-tokens", "1", "--json", "--disable-experts", off, "--top-k-experts", "1")[0] {
		got := cf.Experts[l]
		if got.IDs[0] == plain.Experts[l].IDs[0] || fmt.Sprint(got.IDs) != fmt.Sprint(want.IDs) {
			t.Errorf("layer %d: inspect runs experts %v, run %v (switched off: %d)", l, got.IDs, want.IDs, plain.Experts[l].IDs[0])
		}
		for e := range want.Probs {
			if math.Abs(got.Probs[e]-want.Probs[e]) > 1e-4 {
				t.Fatalf("layer %d: inspect p[%d] = %v, run %v", l, e, got.Probs[e], want.Probs[e])
			}
		}
	}
	code, out, errs := inspectCLI("--model", dir, "--prompt", prompt, "--disable-experts", off, "--top-k-experts", "1")
	if code != 0 || !strings.Contains(out, "experts switched off (layer:expert from 0): "+strings.ReplaceAll(off, ",", ", ")) ||
		!strings.Contains(out, "top-k experts: 1") || !strings.Contains(out, "mlp layer 0: mixture-of-experts layer") ||
		!strings.Contains(out, "kv layer 0 head 0: 4 tokens") {
		t.Errorf("inspect text: exit %d, %s%s", code, out, errs)
	}
	for _, c := range []struct{ flag, val, want string }{
		{"--disable-experts", "0:8", "expert 8 is out of range"},
		{"--disable-experts", "1-2", `"1-2" is not layer:expert`},
		{"--top-k-experts", "3", "want 1…2"},
		{"--top-k-experts", "-1", "--top-k-experts -1"},
	} {
		code, _, errs := inspectCLI("--model", dir, "--prompt", prompt, c.flag, c.val)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("inspect %s %s: exit %d, %q, want an error with %q", c.flag, c.val, code, errs, c.want)
		}
	}
}

// bench --json on an MoE model counts, per decode step, the weights a
// token reads: every tensor of the file but the embedding table (one row
// of it) and the experts the router leaves out (E − k of each layer's E),
// summed here from the file's tensors, plus the KV cache read (at most
// 2 layers × K and V × 4 heads × 16 × 4 bytes per position).
func TestBenchMoEBytesPerToken(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := filepath.Join(t.TempDir(), "olmoe")
	if err := genmodel.Write(dir, "tiny-olmoe", 2, "bf16"); err != nil {
		t.Fatal(err)
	}
	set, err := safetensors.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	const h, E, k = 64, 8, 2
	var want int64
	for _, n := range set.Names() {
		tn, _ := set.Tensor(n)
		b := int64(len(tn.Data))
		switch {
		case n == "model.embed_tokens.weight":
			b = h * 2
		case strings.Contains(n, ".experts."):
			b = b * k / E
		}
		want += b
	}
	set.Close()
	if err := perf.SaveBandwidth(perf.Bandwidth{CPU: perf.CPUName(), Threads: 1, BestGBs: 40}); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	args := []string{"bench", "--model", dir, "--max-tokens", "4", "--repeat", "1", "--threads", "1", "--json", "--beside=false"}
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r perf.Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v in %s", err, out.String())
	}
	const kv = 2 * 2 * 4 * 16 * 4 * 64 // 64 positions: more than the prompt and the answer
	if got := r.Decode.BytesPerToken; got < float64(want) || got > float64(want+kv) {
		t.Errorf("bytes per decode step %.0f, want the %d bytes of the shared weights and %d of %d experts, plus the KV cache", got, want, k, E)
	}
	if r.Decode.ShareOfBandwidth <= 0 || math.Abs(r.Decode.ShareOfBandwidth-r.Decode.GBs/40) > 1e-12 {
		t.Errorf("share of bandwidth %v for %v GB/s of 40", r.Decode.ShareOfBandwidth, r.Decode.GBs)
	}
}

// runRouting runs `loupe run` with args (--json among them) and returns
// each written token's routing; it must write at least one.
func runRouting(t *testing.T, args ...string) [][]routing {
	t.Helper()
	code, out, errs := runCLI(args...)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	var r struct {
		Tokens []struct {
			Experts []routing `json:"experts"`
		} `json:"tokens"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Tokens) == 0 {
		t.Fatalf("run --json: %v, %d tokens", err, len(r.Tokens))
	}
	var routes [][]routing
	for _, tok := range r.Tokens {
		routes = append(routes, tok.Experts)
	}
	return routes
}
