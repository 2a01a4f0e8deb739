package cli

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"loupe/engine/genmodel"
	"loupe/engine/perf"
	"loupe/engine/pool"
)

func TestBenchBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{},                                // no --model
		{"--model", "m", "--repeat", "0"}, // no timed run
		{"--model", "m", "--max-tokens", "0"},
		{"--model", "m", "--threads", "-2"},
		{"--model", "m", "--prompt", "x", "--prompt-tokens", "5"},
		{"--model", "m", "--prompt-file", "f", "--prompt-tokens", "5"},
		{"--model", "m", "--kernels", "mmx"},
		{"--model", "m", "stray"},
		{"--unknown"},
	} {
		var out, errb bytes.Buffer
		if code := Main(append([]string{"bench"}, args...), &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, errb.String())
		}
		if errb.Len() == 0 {
			t.Errorf("%v: no diagnostic", args)
		}
		if out.Len() != 0 {
			t.Errorf("%v: wrote %q to stdout", args, out.String())
		}
	}
}

func TestBenchMissingModel(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-model")
	var out, errb bytes.Buffer
	if code := Main([]string{"bench", "--model", missing}, &out, &errb); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if !strings.Contains(errb.String(), "no-such-model") {
		t.Fatalf("error does not name the path: %q", errb.String())
	}
}

// TestBenchMissingPromptFile fails on the prompt file before loading the
// model (which does not exist either).
func TestBenchMissingPromptFile(t *testing.T) {
	var out, errb bytes.Buffer
	code := Main([]string{"bench", "--model", "no-model", "--prompt-file", filepath.Join(t.TempDir(), "absent.txt")}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "absent.txt") || strings.Contains(errb.String(), "loading") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}

func TestBenchDefaults(t *testing.T) {
	var errb bytes.Buffer
	f, err := parseBenchFlags([]string{"--model", "m"}, &errb)
	if err != nil {
		t.Fatal(err)
	}
	if f.prompt != purpleCat || f.maxTokens != 100 || f.repeat != 3 || f.noProbes || f.level != "" {
		t.Fatalf("defaults %+v", f)
	}
	if !strings.HasPrefix(goldBug, "“But proceed") || len(goldBug) < 10000 {
		t.Fatalf("embedded passage starts %q (%d bytes)", goldBug[:20], len(goldBug))
	}
}

// TestBenchTinyModel runs the whole command on a random-weight model of the
// tiny shape, with a cached bandwidth figure (so no 1 GiB probe), and checks
// the JSON against the counts the flags ask for.
func TestBenchTinyModel(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := genmodel.Write(dir, "tiny", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	threads := min(2, pool.DefaultThreads(), runtime.GOMAXPROCS(0))
	if err := perf.SaveBandwidth(perf.Bandwidth{CPU: perf.CPUName(), Threads: threads, BestGBs: 40}); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	args := []string{"bench", "--model", dir, "--prompt-tokens", "40", "--max-tokens", "5",
		"--repeat", "2", "--threads", strconv.Itoa(threads), "--json", "--beside=false"}
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r perf.Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v in %s", err, out.String())
	}
	if r.Threads != threads || r.Repeat != 2 || len(r.Runs) != 2 || !r.MembwCached || r.MembwGBs != 40 || !r.Probes {
		t.Errorf("header %+v", r)
	}
	if r.Prefill.Tokens < 38 || r.Prefill.Tokens > 40 {
		t.Errorf("prefilled %d tokens for --prompt-tokens 40", r.Prefill.Tokens)
	}
	if r.Decode.Tokens != 5 {
		t.Errorf("decoded %d tokens, want 5 (no stop at EOS)", r.Decode.Tokens)
	}
	if r.Prefill.TokensPerSecond <= 0 || r.Decode.GBs <= 0 || r.PeakGFLOPs <= 0 || r.PeakRSS <= 0 || r.TTFTSeconds <= 0 {
		t.Errorf("missing figures %+v", r)
	}
	// fp32 products are set against the fp32 FMA loop, also at AVX512BF16
	// whose own loop is VDPBF16PS.
	if r.Arithmetic == "fp32" && r.PeakLoop != "fp32 FMA" {
		t.Errorf("fp32 prefill set against the %q loop", r.PeakLoop)
	}
	if want := r.Decode.GBs / 40; math.Abs(r.Decode.ShareOfBandwidth-want) > 1e-12 {
		t.Errorf("share of bandwidth %v, want %v", r.Decode.ShareOfBandwidth, want)
	}
	// The names `loupe bench --json` promises.
	var raw map[string]any
	_ = json.Unmarshal(out.Bytes(), &raw)
	for _, k := range []string{"kernels", "threads", "model_bytes", "membw_gb_per_s", "peak_gflops", "peak_loop", "peak_rss_bytes", "prefill", "decode"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	for phase, keys := range map[string][]string{
		"prefill": {"tokens", "seconds", "tokens_per_second", "gflops", "share_of_peak"},
		"decode":  {"tokens", "seconds", "tokens_per_second", "passes_per_second", "gb_per_s", "share_of_bandwidth"},
	} {
		m, _ := raw[phase].(map[string]any)
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				t.Errorf("JSON %s lacks %q", phase, k)
			}
		}
	}
	out.Reset()
	prof := filepath.Join(t.TempDir(), "cpu.prof")
	if code := Main([]string{"bench", "--model", dir, "--max-tokens", "2", "--repeat", "1", "--no-probes", "--cpuprofile", prof}, &out, &errb); code != 0 {
		t.Fatalf("text run: exit %d: %s", code, errb.String())
	}
	if st, err := os.Stat(prof); err != nil || st.Size() == 0 {
		t.Errorf("no CPU profile written: %v", err)
	}
	if !strings.Contains(out.String(), "write (decode)") || !strings.Contains(out.String(), "probes off") {
		t.Errorf("text output:\n%s", out.String())
	}
}

// TestBenchBeside: by default every timed run gets its own bandwidth probe,
// and the decode share is the median of each run's GB/s over its probe.
func TestBenchBeside(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := genmodel.Write(dir, "tiny", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	if err := perf.SaveBandwidth(perf.Bandwidth{CPU: perf.CPUName(), Threads: 1, BestGBs: 1e6}); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	args := []string{"bench", "--model", dir, "--max-tokens", "4", "--repeat", "3", "--threads", "1", "--json"}
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r perf.Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v in %s", err, out.String())
	}
	if !r.MembwBeside || r.MembwCached || r.MembwGBs <= 0 || r.MembwGBs == 1e6 {
		t.Fatalf("not measured beside the runs: %+v", r)
	}
	var shares []float64
	for _, s := range r.Runs {
		if s.MembwGBs <= 0 || s.PeakRSS <= 0 {
			t.Fatalf("run without its probe or peak RSS: %+v", s)
		}
		gbs := r.Decode.BytesPerToken * float64(s.Timing.DecodeTokens-1) / s.Timing.DecodeSeconds / 1e9
		shares = append(shares, gbs/s.MembwGBs)
	}
	slices.Sort(shares)
	if got, want := r.Decode.ShareOfBandwidth, shares[1]; math.Abs(got-want) > 1e-9*want {
		t.Errorf("share %v, want the median of the runs' shares %v (%v)", got, want, shares)
	}
}

// TestBenchThreadsSweep: --threads-sweep runs 1 … N threads and gives each
// step its rates and gains, in JSON and as a table.
func TestBenchThreadsSweep(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := genmodel.Write(dir, "tiny", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	n := min(2, pool.DefaultThreads(), runtime.GOMAXPROCS(0))
	var out, errb bytes.Buffer
	args := []string{"bench", "--model", dir, "--prompt-tokens", "20", "--max-tokens", "3", "--repeat", "1",
		"--threads", strconv.Itoa(n), "--threads-sweep", "--no-probes"}
	if code := Main(append(args, "--json"), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r threadsSweepResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v in %s", err, out.String())
	}
	if len(r.Steps) != n || r.Kernels == "" || r.Arithmetic == "" {
		t.Fatalf("sweep %+v", r)
	}
	for i, s := range r.Steps {
		if s.Threads != i+1 || s.PrefillTokensPerSecond <= 0 || s.DecodePassesPerSecond <= 0 || s.PrefillTokens < 18 {
			t.Errorf("step %d: %+v", i, s)
		}
		if i == 0 && (s.PrefillStep != 1 || s.DecodeSpeedup != 1) {
			t.Errorf("first step gains %+v, want 1", s)
		}
		if i > 0 && math.Abs(s.PrefillStep-s.PrefillTokensPerSecond/r.Steps[i-1].PrefillTokensPerSecond) > 1e-9 {
			t.Errorf("step %d: prefill step %.3f is not its rate over the previous", i, s.PrefillStep)
		}
	}
	out.Reset()
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("text: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "prefill tok/s") || strings.Count(out.String(), "\n") < n+2 {
		t.Errorf("table:\n%s", out.String())
	}
}
