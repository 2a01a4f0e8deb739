package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"loupe/engine/genmodel"
	"loupe/engine/tokenizer"
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
	if r.Kernels == "" || r.Threads < 1 {
		t.Fatalf("kernels %q threads %d", r.Kernels, r.Threads)
	}
	var ids []int
	for _, tk := range r.Tokens {
		ids = append(ids, tk.ID)
	}
	if r.Text != tok.Decode(ids) {
		t.Fatalf("text %q, want %q", r.Text, tok.Decode(ids))
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
