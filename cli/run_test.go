package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"loupe/engine"
	"loupe/engine/genmodel"
	"loupe/engine/tokenizer"
	"loupe/trace"
)

// tinyDir writes genmodel's tiny random model (hidden 64, 2 layers, the
// real tokenizer) into a temporary folder.
func tinyDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := genmodel.Write(dir, "tiny", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = Main(append([]string{"run"}, args...), &o, &e)
	return code, o.String(), e.String()
}

func runJSONOut(t *testing.T, args ...string) runResult {
	t.Helper()
	code, out, errs := runCLI(append(args, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r runResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	return r
}

func TestRunJSON(t *testing.T) {
	dir := tinyDir(t)
	r := runJSONOut(t, "--model", dir, "--prompt", "Once upon a time", "--max-tokens", "5")
	tok, err := tokenizer.Load(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := tok.Encode("Once upon a time")
	if len(r.PromptIDs) != len(want) || r.PromptIDs[0] != want[0] {
		t.Fatalf("prompt_ids %v, want %v", r.PromptIDs, want)
	}
	if len(r.Tokens) != 5 || r.StopReason != "max_tokens" || !r.Greedy {
		t.Fatalf("%d tokens, stop %q, greedy %v", len(r.Tokens), r.StopReason, r.Greedy)
	}
	for i, tk := range r.Tokens {
		if len(tk.Top10) != 10 || tk.Top10[0].ID != tk.ID || tk.P != tk.Top10[0].P {
			t.Fatalf("token %d: greedy choice %d is not the top candidate %+v", i, tk.ID, tk.Top10)
		}
		for j := 1; j < 10; j++ {
			if tk.Top10[j].P > tk.Top10[j-1].P {
				t.Fatalf("token %d: top10 not sorted: %+v", i, tk.Top10)
			}
		}
	}
	if r.Prefill.Tokens != len(want) || r.Prefill.Seconds <= 0 || r.Decode.Tokens != 5 || r.Decode.Seconds <= 0 {
		t.Fatalf("prefill %+v decode %+v", r.Prefill, r.Decode)
	}
	if r.Kernels == "" || r.Threads < 1 || (r.Arithmetic != "fp32" && r.Arithmetic != "bf16") {
		t.Fatalf("kernels %q arithmetic %q threads %d", r.Kernels, r.Arithmetic, r.Threads)
	}
	var ids []int
	for _, tk := range r.Tokens {
		ids = append(ids, tk.ID)
	}
	if r.Text != tok.Decode(ids) {
		t.Fatalf("text %q, want %q", r.Text, tok.Decode(ids))
	}
	// Greedy: the model's p is the one it chose by; the perplexity is
	// exp of their mean negative log, here in float64 from the JSON.
	var nll float64
	for i, tk := range r.Tokens {
		if math.Abs(tk.ModelP-tk.P) > 1e-6 {
			t.Fatalf("token %d: model_p %v, p %v: greedy decoding chose by the model's own p", i, tk.ModelP, tk.P)
		}
		nll -= math.Log(tk.ModelP)
	}
	if want := math.Exp(nll / float64(len(r.Tokens))); math.Abs(r.Perplexity-want) > 1e-9*want {
		t.Fatalf("perplexity %v, want %v", r.Perplexity, want)
	}
}

func TestRunStreamsTextAndSummary(t *testing.T) {
	dir := tinyDir(t)
	r := runJSONOut(t, "--model", dir, "--prompt", "Hello", "--max-tokens", "4", "--threads", "1")
	code, out, errs := runCLI("--model", dir, "--prompt", "Hello", "--max-tokens", "4", "--threads", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	text, summary, ok := strings.Cut(out, "\n\nprefill")
	if !ok {
		t.Fatalf("no summary after the text:\n%s", out)
	}
	if text != r.Text {
		t.Fatalf("streamed %q; with --json and 1 thread %q", text, r.Text)
	}
	for _, want := range []string{"tokens", "tok/s", "\ndecode ", "    4 tokens", "\ntotal", "stop: max_tokens", "2 threads", "greedy"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q:\nprefill%s", want, summary)
		}
	}
}

func TestRunSamplingIsSeeded(t *testing.T) {
	dir := tinyDir(t)
	args := []string{"--model", dir, "--prompt", "The", "--max-tokens", "6", "--temperature", "1.5", "--seed", "7"}
	a, b := runJSONOut(t, args...), runJSONOut(t, args...)
	if a.Text != b.Text || a.Seed != 7 || a.Greedy {
		t.Fatalf("seed 7 twice: %q and %q (seed %d, greedy %v)", a.Text, b.Text, a.Seed, a.Greedy)
	}
	c := runJSONOut(t, "--model", dir, "--prompt", "The", "--max-tokens", "2", "--top-k", "5")
	if c.Greedy || c.Seed == 0 {
		t.Fatalf("--top-k alone: greedy %v, seed %d (want sampling at T = 1 with a drawn seed)", c.Greedy, c.Seed)
	}
}

// Without --model, run uses the embedded demo model; a build without one
// asks for --model.
func TestRunDefaultModel(t *testing.T) {
	r := runJSONOut(t, "--prompt", "The gold-bug", "--max-tokens", "3")
	if len(r.Tokens) != 3 || len(r.PromptIDs) == 0 {
		t.Fatalf("demo model: %d tokens from %d prompt ids", len(r.Tokens), len(r.PromptIDs))
	}
	old := demoModelDir
	defer func() { demoModelDir = old }()
	demoModelDir = func() (string, error) { return "", nil }
	if code, _, errs := runCLI("--prompt", "x"); code != 1 || !strings.Contains(errs, "--model") {
		t.Fatalf("no demo model: exit %d, stderr %q", code, errs)
	}
}

func TestRunErrors(t *testing.T) {
	dir := tinyDir(t)
	for _, tc := range []struct {
		args []string
		code int
		text string
	}{
		{[]string{"--model", filepath.Join(dir, "nothing"), "--prompt", "x"}, 1, "nothing"},
		{[]string{"--model", dir, "--prompt", ""}, 1, "--prompt"},
		{[]string{"--model", dir, "--prompt", "x", "--temperature", "-1"}, 1, "temperature"},
		{[]string{"--model", dir, "--prompt", "x", "--max-tokens", "0"}, 1, "max_tokens"},
		{[]string{"--model", dir, "--prompt", "x", "--kernels", "sse9"}, 1, "sse9"},
		{[]string{"--model", dir, "--prompt", "x", "--max-tokens", "100000"}, 1, "context"},
		{[]string{"--model", dir, "--bogus"}, 2, "bogus"},
		{[]string{"--model", dir, "hello"}, 2, "--prompt"},
		{[]string{"--model", dir, "--prompt", "x", "--threads", "-1"}, 2, "--threads"},
	} {
		code, out, errs := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.text) || strings.Contains(errs, "panic") {
			t.Errorf("%v: exit %d, stderr %q (want exit %d naming %q)", tc.args, code, errs, tc.code, tc.text)
		}
		if tc.code == 1 && (strings.Count(strings.TrimSpace(errs), "\n") != 0 || out != "") {
			t.Errorf("%v: want one line on stderr and nothing on stdout, got %q / %q", tc.args, errs, out)
		}
	}
}

// --ablate L:H switches those heads off: the run is the engine's own run
// with GenerateOptions.Ablate (greedy ids and every top-10 probability), it
// differs from the run without ablation, and the JSON names the heads.
func TestRunAblateMatchesEngine(t *testing.T) {
	dir := tinyDir(t)
	args := []string{"--model", dir, "--prompt", "Once upon a time there", "--max-tokens", "6", "--threads", "1"}
	plain := runJSONOut(t, args...)
	r := runJSONOut(t, append(args, "--ablate", "1:2,0:0")...)
	if len(r.Ablate) != 2 || r.Ablate[0] != (trace.Head{Layer: 1, Head: 2}) || r.Ablate[1] != (trace.Head{Layer: 0, Head: 0}) {
		t.Fatalf("ablate %+v, want [{1 2} {0 0}]", r.Ablate)
	}
	if len(plain.Ablate) != 0 || plain.Ablate == nil {
		t.Fatalf("a run without --ablate records %v, want []", plain.Ablate)
	}
	m, err := engine.Load(dir, engine.LoadOptions{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	opt := engine.DefaultGenerateOptions()
	opt.Settings.MaxTokens = 6
	opt.Attn = engine.AttnCapture{}
	opt.Ablate = []trace.Head{{Layer: 1, Head: 2}, {Layer: 0, Head: 0}}
	want, err := m.Generate(context.Background(), "Once upon a time there", opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Steps) != len(r.Tokens) {
		t.Fatalf("%d tokens, engine %d", len(r.Tokens), len(want.Steps))
	}
	moved := 0.0
	for i, s := range want.Steps {
		if r.Tokens[i].ID != s.Chosen.ID {
			t.Fatalf("token %d: cli %d, engine %d", i, r.Tokens[i].ID, s.Chosen.ID)
		}
		for j, c := range s.Top {
			if r.Tokens[i].Top10[j].ID != c.ID || r.Tokens[i].Top10[j].P != c.P {
				t.Fatalf("token %d rank %d: cli %+v, engine %+v", i, j, r.Tokens[i].Top10[j], c)
			}
		}
		moved = max(moved, math.Abs(r.Tokens[i].P-plain.Tokens[i].P))
		if r.Tokens[i].ID != plain.Tokens[i].ID {
			break // after a divergence the contexts differ
		}
	}
	if moved < 1e-6 {
		t.Fatalf("switching off heads 1:2 and 0:0 moved no probability (max |Δp| %g)", moved)
	}
}

func TestRunAblateErrors(t *testing.T) {
	dir := tinyDir(t) // 2 layers
	for _, tc := range []struct{ spec, text string }{
		{"2:0", "layer 2 is out of range"},
		{"0:99", "head 99 is out of range"},
		{"1-2", `"1-2" is not layer:head`},
		{"x:1", "is not layer:head"},
	} {
		code, out, errs := runCLI("--model", dir, "--prompt", "x", "--max-tokens", "2", "--ablate", tc.spec)
		if code != 1 || !strings.Contains(errs, tc.text) || !strings.Contains(errs, "--ablate") ||
			strings.Count(strings.TrimSpace(errs), "\n") != 0 || out != "" {
			t.Errorf("--ablate %s: exit %d, stderr %q, stdout %q (want exit 1 and one line naming %q)", tc.spec, code, errs, out, tc.text)
		}
	}
}

// --disable-experts L:E and --top-k-experts K on an MoE model: the JSON
// records them, no token's routing runs an expert switched off, each
// runs K experts, and what a model cannot run is one line on stderr.
func TestRunDisableExperts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "olmoe")
	if err := genmodel.Write(dir, "tiny-olmoe", 1, "f32"); err != nil { // 2 layers, 8 experts, k = 2
		t.Fatal(err)
	}
	args := []string{"--model", dir, "--prompt", "Once upon a time there", "--max-tokens", "5", "--threads", "1"}
	r := runJSONOut(t, append(args, "--disable-experts", "0:3,1:0,1:5", "--top-k-experts", "1")...)
	want := []trace.Expert{{Layer: 0, Expert: 3}, {Layer: 1, Expert: 0}, {Layer: 1, Expert: 5}}
	if !slices.Equal(r.DisableExperts, want) || r.TopKExperts != 1 {
		t.Fatalf("disable_experts %v, top_k_experts %d", r.DisableExperts, r.TopKExperts)
	}
	for i, tok := range r.Tokens {
		if len(tok.Experts) != 2 {
			t.Fatalf("token %d: %d routings, want 2", i, len(tok.Experts))
		}
		for _, rt := range tok.Experts {
			if len(rt.IDs) != 1 || slices.Contains(want, trace.Expert{Layer: rt.Layer, Expert: rt.IDs[0]}) {
				t.Errorf("token %d layer %d ran %v", i, rt.Layer, rt.IDs)
			}
		}
	}
	for _, tc := range []struct{ flag, spec, text string }{
		{"--disable-experts", "0:8", "expert 8 is out of range"},
		{"--disable-experts", "2:0", "layer 2 is out of range"},
		{"--disable-experts", "1-2", `"1-2" is not layer:expert`},
		{"--top-k-experts", "3", "want 1…2"},
		{"--top-k-experts", "-1", "--top-k-experts -1"},
	} {
		code, out, errs := runCLI(append(args, tc.flag, tc.spec)...)
		if code != 1 || !strings.Contains(errs, tc.text) || strings.Count(strings.TrimSpace(errs), "\n") != 0 || out != "" {
			t.Errorf("%s %s: exit %d, stderr %q, stdout %q (want exit 1 and one line naming %q)", tc.flag, tc.spec, code, errs, out, tc.text)
		}
	}
}
