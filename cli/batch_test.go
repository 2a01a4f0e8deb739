package cli

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The check of `loupe run --batch-prompts` from outside: four prompts of
// different lengths written together on a generated model, each sequence
// compared with its solo `loupe run --json`: the same prompt ids and
// written ids, the top-10 within 1e-4.
func TestRunBatchPromptsMatchesSoloRuns(t *testing.T) {
	dir := tinyDir(t)
	prompts := []string{
		"Once upon a time, in a land far away, there lived",
		"The",
		"A batch of four prompts",
		"My cat is purple. But my friends tell me there is no such thing as a",
	}
	file := filepath.Join(t.TempDir(), "prompts.txt")
	if err := os.WriteFile(file, []byte(strings.Join(prompts, "\n")+"\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI("--model", dir, "--batch-prompts", file, "--max-tokens", "6", "--threads", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got batchRunResult
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if len(got.Sequences) != len(prompts) || got.Batch != len(prompts) || got.Decode.Tokens == 0 {
		t.Fatalf("%d sequences, batch %d, decode %+v", len(got.Sequences), got.Batch, got.Decode)
	}
	for i, seq := range got.Sequences {
		solo := runJSONOut(t, "--model", dir, "--prompt", prompts[i], "--max-tokens", "6", "--threads", "2")
		if seq.Prompt != prompts[i] || !slicesEqual(seq.PromptIDs, solo.PromptIDs) {
			t.Fatalf("sequence %d: prompt %q ids %v, solo %v", i, seq.Prompt, seq.PromptIDs, solo.PromptIDs)
		}
		if len(seq.Tokens) != len(solo.Tokens) || seq.StopReason != solo.StopReason || seq.Text != solo.Text {
			t.Fatalf("sequence %d: %d tokens (%s) %q, solo %d (%s) %q", i, len(seq.Tokens), seq.StopReason, seq.Text, len(solo.Tokens), solo.StopReason, solo.Text)
		}
		for s, tok := range seq.Tokens {
			want := solo.Tokens[s]
			if tok.ID != want.ID || len(tok.Top10) != 10 {
				t.Fatalf("sequence %d token %d: id %d, solo %d (%d candidates)", i, s, tok.ID, want.ID, len(tok.Top10))
			}
			for k, c := range tok.Top10 {
				if c.ID != want.Top10[k].ID || math.Abs(c.P-want.Top10[k].P) > 1e-4 {
					t.Errorf("sequence %d token %d candidate %d: %d p %.6f, solo %d p %.6f", i, s, k, c.ID, c.P, want.Top10[k].ID, want.Top10[k].P)
				}
			}
		}
	}
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRunBatchPromptsRefusals: bad files and flags a batch does not take
// are clear errors.
func TestRunBatchPromptsRefusals(t *testing.T) {
	dir := tinyDir(t)
	empty := filepath.Join(t.TempDir(), "empty.txt")
	os.WriteFile(empty, []byte("\n \n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--batch-prompts", filepath.Join(dir, "missing.txt")}, "--batch-prompts"},
		{[]string{"--batch-prompts", empty}, "no prompt"},
		{[]string{"--batch-prompts", empty, "--prompt", "x"}, "not both"},
		{[]string{"--batch-prompts", empty, "--ablate", "0:0"}, "one prompt at a time"},
	} {
		code, _, errs := runCLI(append([]string{"--model", dir}, tc.args...)...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %q (want an error naming %q)", tc.args, code, errs, tc.want)
		}
	}
}

// The batch sweep's JSON names every figure the roofline needs, per point.
// Speeds on a tiny model on a shared machine mean little: printed, not
// asserted (scripts/batch-check.sh runs a model big enough to be bound by
// memory).
func TestSweepBatchJSON(t *testing.T) {
	dir := sweepModel(t)
	var out, errb bytes.Buffer
	args := []string{"sweep", "--model", dir, "--what", "batch", "--values", "1,2,4", "--threads", "1",
		"--max-tokens", "4", "--json"}
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var raw struct {
		What   string           `json:"what"`
		Peak   float64          `json:"peak_gflops"`
		Points []map[string]any `json:"points"`
	}
	if err := json.Unmarshal(out.Bytes(), &raw); err != nil {
		t.Fatalf("%v in %s", err, out.String())
	}
	if raw.What != "batch" || len(raw.Points) != 3 || raw.Peak <= 0 {
		t.Fatalf("%s", out.String())
	}
	names := []string{"value", "decode_tok_s", "per_sequence_tok_s", "bytes_per_token", "gflops", "share_of_peak",
		"share_of_bandwidth", "predicted_tok_s", "memory_ceiling_tok_s", "compute_ceiling_tok_s"}
	for i, p := range raw.Points {
		for _, n := range names {
			if v, ok := p[n].(float64); !ok || v <= 0 {
				t.Errorf("point %d: %s = %v", i, n, p[n])
			}
		}
		t.Logf("B=%v: %.1f tok/s in all, %.1f per sequence, %.3g bytes a token", p["value"], p["decode_tok_s"], p["per_sequence_tok_s"], p["bytes_per_token"])
	}
	if b1, b4 := raw.Points[0]["bytes_per_token"].(float64), raw.Points[2]["bytes_per_token"].(float64); !(b4 < b1/2) {
		t.Errorf("bytes per written token %g at 4, %g at 1: the weights are not shared", b4, b1)
	}
}

// `loupe bench --batch B` is the batch sweep's one point.
func TestBenchBatchJSON(t *testing.T) {
	dir := sweepModel(t)
	var out, errb bytes.Buffer
	args := []string{"bench", "--model", dir, "--batch", "3", "--threads", "1", "--max-tokens", "3", "--repeat", "1", "--json"}
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var raw struct {
		What   string           `json:"what"`
		Points []map[string]any `json:"points"`
	}
	if err := json.Unmarshal(out.Bytes(), &raw); err != nil {
		t.Fatalf("%v in %s", err, out.String())
	}
	if raw.What != "batch" || len(raw.Points) != 1 || raw.Points[0]["value"] != 3.0 || !(raw.Points[0]["per_sequence_tok_s"].(float64) > 0) {
		t.Fatalf("%s", out.String())
	}
	if code := Main([]string{"bench", "--model", dir, "--batch", "-2"}, &out, &errb); code != 2 {
		t.Errorf("--batch -2: exit %d", code)
	}
}
