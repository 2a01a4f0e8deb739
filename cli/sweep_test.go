package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"loupe/engine/genmodel"
	"loupe/engine/perf"
	"loupe/kernels"
)

func TestSweepBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--what", "context"},            // no --model
		{"--model", "m"},                 // no --what
		{"--model", "m", "--what", "fp"}, // unknown sweep
		{"--model", "m", "--what", "context", "--max-tokens", "0"},
		{"--model", "m", "--what", "context", "--prompt", "a", "--prompt-file", "b"},
		{"--model", "m", "--what", "context", "stray"},
	} {
		var out, errb bytes.Buffer
		if code := Main(append([]string{"sweep"}, args...), &out, &errb); code != 2 || errb.Len() == 0 || out.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q, stdout %q", args, code, errb.String(), out.String())
		}
	}
}

// sweepModel writes a tiny bf16 model for a sweep, with a cached
// bandwidth of 40 GB/s that the probe's lower 30 does not replace.
func sweepModel(t *testing.T) string {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := genmodel.Write(dir, "tiny", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	if err := perf.SaveBandwidth(perf.Bandwidth{CPU: perf.CPUName(), Threads: 1, BestGBs: 40}); err != nil {
		t.Fatal(err)
	}
	saved := reprobe
	t.Cleanup(func() { reprobe = saved })
	reprobe = func(perf.WeightHolder, int) (perf.Bandwidth, error) { return perf.Bandwidth{BestGBs: 30}, nil }
	return dir
}

// The JSON of `loupe sweep` has exactly the names it promises, and a
// context sweep past the model's context says where it stopped.
func TestSweepJSON(t *testing.T) {
	dir := sweepModel(t)
	var out, errb bytes.Buffer
	args := []string{"sweep", "--model", dir, "--what", "context", "--values", "256,1k,8k", "--threads", "1",
		"--prompt-tokens", "8", "--max-tokens", "2", "--json"}
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var raw map[string]any
	if err := json.Unmarshal(out.Bytes(), &raw); err != nil {
		t.Fatalf("%v in %s", err, out.String())
	}
	keys := func(m map[string]any) []string {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return ks
	}
	if got := keys(raw); !slices.Equal(got, []string{"bandwidth_gb_s", "points", "stopped", "what"}) {
		t.Fatalf("top-level names %v", got)
	}
	points := raw["points"].([]any)
	if len(points) != 3 || raw["what"] != "context" || raw["bandwidth_gb_s"] != 40.0 {
		t.Fatalf("%s", out.String())
	}
	want := []string{"bytes_per_token", "decode_tok_s", "predicted_decode_tok_s", "prefill_tok_s", "value"}
	for i, v := range []float64{256, 1024, 4094} {
		p := points[i].(map[string]any)
		if got := keys(p); !slices.Equal(got, want) || p["value"] != v {
			t.Errorf("point %d: %v", i, p)
		}
	}
	if !strings.Contains(errb.String(), "stopped:") {
		t.Errorf("stderr does not say where it stopped: %s", errb.String())
	}
}

// The kernels sweep's JSON keeps its names; where the CPU has the bf16
// level, "exact" (fp32 products) is a point of its own beside avx512bf16.
func TestSweepKernelsJSONExact(t *testing.T) {
	if !kernels.Supported(kernels.AVX512BF16) {
		t.Skip("this CPU has no avx512bf16")
	}
	dir := sweepModel(t)
	var out, errb bytes.Buffer
	args := []string{"sweep", "--model", dir, "--what", "kernels", "--values", "exact,avx512bf16", "--threads", "1",
		"--prompt-tokens", "16", "--max-tokens", "2", "--json"}
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r struct {
		What   string           `json:"what"`
		Points []map[string]any `json:"points"`
		BW     float64          `json:"bandwidth_gb_s"`
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if r.What != "kernels" || len(r.Points) != 2 || r.Points[0]["value"] != "exact" || r.Points[1]["value"] != "avx512bf16" || r.BW != 40 {
		t.Fatalf("%s", out.String())
	}
	for _, p := range r.Points {
		if len(p) != 5 || p["prefill_tok_s"].(float64) <= 0 || p["decode_tok_s"].(float64) <= 0 || p["predicted_decode_tok_s"].(float64) <= 0 {
			t.Errorf("point %v", p)
		}
	}
}
