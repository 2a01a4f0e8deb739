package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"loupe/engine/genmodel"
)

func tinyQwen3Dir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tiny-qwen3")
	if err := genmodel.Write(dir, "tiny-qwen3", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The ids of "<|im_start|>user\nWhat is the capital of France?<|im_end|>\n
// <|im_start|>assistant\n" and Qwen3's empty think block, from the
// tokenizer's reference ids (docs/spec/tokenizer.md §7, docs/spec/qwen3.md §4).
var (
	capitalTurn = []int{151644, 872, 198, 3838, 374, 279, 6722, 315, 9625, 30, 151645, 198, 151644, 77091, 198}
	emptyThink  = []int{151667, 271, 151668, 271}
)

func TestRunChatJSON(t *testing.T) {
	dir := tinyQwen3Dir(t)
	code, out, errs := runCLI("--model", dir, "--chat", "--think", "off", "--prompt", "What is the capital of France?", "--max-tokens", "4", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r runResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if want := append(slices.Clone(capitalTurn), emptyThink...); !slices.Equal(r.PromptIDs, want) {
		t.Errorf("prompt_ids %v, want %v", r.PromptIDs, want)
	}
	if !r.Chat || r.Think != "off" || !strings.HasSuffix(r.Rendered, "assistant\n<think>\n\n</think>\n\n") || len(r.Messages) != 1 {
		t.Errorf("chat %v think %q rendered %q messages %v", r.Chat, r.Think, r.Rendered, r.Messages)
	}
	if r.Thinking == nil || r.Answer == nil || r.Thinking.Tokens+r.Answer.Tokens != r.Decode.Tokens {
		t.Errorf("thinking %+v answer %+v decode %+v", r.Thinking, r.Answer, r.Decode)
	}
	// Every token carries both flags, by their JSON names.
	var raw struct {
		Tokens []map[string]any `json:"tokens"`
	}
	json.Unmarshal([]byte(out), &raw)
	for _, tk := range raw.Tokens {
		if _, ok := tk["special"].(bool); !ok {
			t.Fatalf("token %v has no special flag", tk)
		}
		if _, ok := tk["thinking"].(bool); !ok {
			t.Fatalf("token %v has no thinking flag", tk)
		}
	}
	// With a system message, and thinking left to the template (on).
	r = runJSONOut(t, "--model", dir, "--chat", "--system", "Be brief.", "--prompt", "What is the capital of France?", "--max-tokens", "2")
	sys := []int{151644, 8948, 198, 3430, 9814, 13, 151645, 198} // <|im_start|>system\nBe brief.<|im_end|>\n
	if want := append(sys, capitalTurn...); !slices.Equal(r.PromptIDs, want) {
		t.Errorf("with --system: prompt_ids %v, want %v", r.PromptIDs, want)
	}
}

func TestRunChatRefusals(t *testing.T) {
	base := tinyDir(t)
	if code, _, errs := runCLI("--model", base, "--chat", "--prompt", "Hi"); code != 1 || !strings.Contains(errs, "no chat template") {
		t.Errorf("--chat on a base model: exit %d, %q", code, errs)
	}
	for _, args := range [][]string{{"--think", "on"}, {"--system", "S"}, {"--chat", "--think", "maybe"}} {
		if code, _, errs := runCLI(append(args, "--model", base, "--prompt", "Hi")...); code != 2 || strings.Count(errs, "\n") > 1 {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
	// Qwen2.5-Instruct's template has no thinking switch: on is refused
	// (not recorded as a run with thinking), off is what it does anyway.
	tmpl, err := os.ReadFile("../testdata/chat/qwen2.5-instruct.chat_template.jinja")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "chat_template.jinja"), tmpl, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI("--model", base, "--chat", "--think", "on", "--prompt", "Hi", "--max-tokens", "1"); code != 1 ||
		!strings.Contains(errs, "no thinking switch") || strings.Count(errs, "\n") > 1 {
		t.Errorf("--think on without a thinking template: exit %d, %q", code, errs)
	}
	if code, _, errs := runCLI("--model", base, "--chat", "--think", "off", "--prompt", "Hi", "--max-tokens", "1"); code != 0 {
		t.Errorf("--think off without a thinking template: exit %d, %q", code, errs)
	}
	if code, _, errs := runCLI("--model", base, "--chat", "--prompt", ""); code != 1 || !strings.Contains(errs, "user's message") {
		t.Errorf("--chat with an empty prompt: exit %d, %q", code, errs)
	}
}

func TestTokenizeChat(t *testing.T) {
	dir := tinyQwen3Dir(t)
	code, out, errs := tokenizeCmd(t, "", "--model", dir, "--chat", "--think", "off", "--text", "What is the capital of France?")
	if code != 0 || !strings.Contains(out, "151667  <think>") || !strings.Contains(out, "19 tokens") {
		t.Errorf("table: exit %d %s\n%s", code, errs, out)
	}
	in := `{"text": "What is the capital of France?", "think": "off"}` + "\n" +
		`{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}], "add_generation_prompt": false}` + "\n"
	code, out, errs = tokenizeCmd(t, in, "--model", dir, "--chat", "--jsonl")
	if code != 0 {
		t.Fatalf("jsonl: exit %d %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var first, second struct {
		IDs  []int  `json:"ids"`
		Text string `json:"text"`
	}
	json.Unmarshal([]byte(lines[0]), &first)
	json.Unmarshal([]byte(lines[1]), &second)
	if want := append(slices.Clone(capitalTurn), emptyThink...); !slices.Equal(first.IDs, want) {
		t.Errorf("line 1 ids %v, want %v", first.IDs, want)
	}
	// The last assistant turn gets an (empty) think block; no generation prompt.
	if want := "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\nHello<|im_end|>\n"; second.Text != want {
		t.Errorf("line 2 text %q, want %q", second.Text, want)
	}
	if code, _, errs := tokenizeCmd(t, `{"messages": 3}`+"\n", "--model", dir, "--chat", "--jsonl"); code != 1 || !strings.Contains(errs, "line 1") {
		t.Errorf("bad line: exit %d %q", code, errs)
	}
	if code, _, errs := tokenizeCmd(t, "", "--model", tinyDir(t), "--chat", "--text", "Hi"); code != 1 || !strings.Contains(errs, "no chat template") {
		t.Errorf("base model: exit %d %q", code, errs)
	}
}
