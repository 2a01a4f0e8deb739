package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const qwenTokenizerJSON = "../assets/qwen2.5/tokenizer.json"

// tokenizeCmd runs `loupe tokenize args...` through Main with stdin.
func tokenizeCmd(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	old := tokenizeInput
	tokenizeInput = strings.NewReader(stdin)
	defer func() { tokenizeInput = old }()
	var out, errb bytes.Buffer
	code = Main(append([]string{"tokenize"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// TestTokenizeJSONL: one output line per input line, with the reference
// ids of tokenizer-cases.jsonl and the vocab pieces.
func TestTokenizeJSONL(t *testing.T) {
	in := `{"text": "Hello, world!"}` + "\n\n" + `{"text": "<|im_start|>user\nhi<|im_end|>"}` + "\n" + `{"text": ""}`
	code, out, errs := tokenizeCmd(t, in, "--model", qwenTokenizerJSON, "--jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	want := []string{
		`{"ids":[9707,11,1879,0],"pieces":["Hello",",","Ġworld","!"]}`,
		`{"ids":[151644,872,198,6023,151645],"pieces":["<|im_start|>","user","Ċ","hi","<|im_end|>"]}`,
		`{"ids":[],"pieces":[]}`,
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines:\n%s", len(lines), out)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i, lines[i], want[i])
		}
	}
}

// TestTokenizeModelPaths: a model folder, a .safetensors file in it and
// the tokenizer.json itself all find the tokenizer.
func TestTokenizeModelPaths(t *testing.T) {
	data, err := os.ReadFile(qwenTokenizerJSON)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, b := range map[string][]byte{"tokenizer.json": data, "model.safetensors": nil} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, model := range []string{dir, filepath.Join(dir, "model.safetensors"), filepath.Join(dir, "tokenizer.json")} {
		code, out, errs := tokenizeCmd(t, "", "--model", model, "--text", "Hello world")
		if code != 0 || !strings.Contains(out, "9707") || !strings.Contains(out, "1879") || !strings.Contains(out, "2 tokens") {
			t.Errorf("--model %s: exit %d\n%s%s", model, code, out, errs)
		}
	}
}

// TestTokenizeTable: stdin is read whole; the table shows ids, pieces and
// quoted bytes, control tokens marked.
func TestTokenizeTable(t *testing.T) {
	code, out, errs := tokenizeCmd(t, "<|im_end|>\n 🍕", "--model", qwenTokenizerJSON)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, s := range []string{"151645", "<|im_end|>", "control", `"\n"`, "Ċ", "11162", `" \xf0\x9f"`, "5 tokens, 16 bytes"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
}

// TestTokenizeErrors: bad flags, a missing model, a bad model and bad
// JSON lines fail with a message and a non-zero exit.
func TestTokenizeErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "tokenizer.json")
	if err := os.WriteFile(bad, []byte(`{"model": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"", []string{"--bogus"}, 2, "bogus"},
		{"", []string{"--model", qwenTokenizerJSON, "stray"}, 2, "stray"},
		{"", []string{"--model", "no/such/dir"}, 1, "no/such/dir"},
		{"", []string{"--model", bad, "--text", "x"}, 1, bad},
		{"not json\n", []string{"--model", qwenTokenizerJSON, "--jsonl"}, 1, "line 1"},
		{`{"text": "a"}` + "\n" + `{"txt": "a"}`, []string{"--model", qwenTokenizerJSON, "--jsonl"}, 1, "line 2"},
	}
	for _, c := range cases {
		code, _, errs := tokenizeCmd(t, c.stdin, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("tokenize %v: exit %d, stderr %q; want exit %d mentioning %q", c.args, code, errs, c.code, c.want)
		}
	}
}

// TestTokenizeDefaultModel: without --model the demo model's folder is
// used, and a build without one says so.
func TestTokenizeDefaultModel(t *testing.T) {
	old := demoModelDir
	defer func() { demoModelDir = old }()
	demoModelDir = func() (string, error) { return "", nil }
	if code, _, errs := tokenizeCmd(t, "", "--text", "x"); code != 1 || !strings.Contains(errs, "no --model given") {
		t.Errorf("no demo model: exit %d, stderr %q", code, errs)
	}
	data, err := os.ReadFile(qwenTokenizerJSON)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	demoModelDir = func() (string, error) { return dir, nil }
	if code, out, errs := tokenizeCmd(t, "", "--text", "Hello world"); code != 0 || !strings.Contains(out, "9707") {
		t.Errorf("demo model: exit %d\n%s%s", code, out, errs)
	}
}

// TestTokenizeJSONLRoundTrip: every case of tokenizer-cases.jsonl fed
// through --jsonl gives the reference ids.
func TestTokenizeJSONLRoundTrip(t *testing.T) {
	data, err := os.ReadFile("../testdata/tokenizer-cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := tokenizeCmd(t, string(data), "--model", qwenTokenizerJSON, "--jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	inLines := strings.Split(strings.TrimSpace(string(data)), "\n")
	outLines := strings.Split(strings.TrimSpace(out), "\n")
	if len(inLines) != len(outLines) {
		t.Fatalf("%d lines in, %d out", len(inLines), len(outLines))
	}
	for i := range inLines {
		var in struct{ IDs []int }
		var got struct{ IDs []int }
		if json.Unmarshal([]byte(inLines[i]), &in) != nil || json.Unmarshal([]byte(outLines[i]), &got) != nil {
			t.Fatalf("line %d: bad JSON", i+1)
		}
		if !equalInts(in.IDs, got.IDs) {
			t.Errorf("line %d: ids %v, want %v", i+1, got.IDs, in.IDs)
		}
	}
}

func equalInts(a, b []int) bool {
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
