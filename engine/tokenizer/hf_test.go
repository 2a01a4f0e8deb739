package tokenizer

import (
	"encoding/json"
	"os"
	"testing"
)

// The fixtures in testdata/hf-*.jsonl come from Hugging Face tokenizers
// 0.23.2 (Rust, Oniguruma regex) run on assets/qwen2.5/tokenizer.json by
// testdata/gen-hf-cases.js.

// TestHFEdgeCases: hand-picked edge cases (numbers, whitespace runs, CR/LF,
// contractions, scripts, emoji, combining marks, added tokens in text).
func TestHFEdgeCases(t *testing.T) { checkEncodeFixture(t, "testdata/hf-edge.jsonl", 150) }

// TestHFRandom: seeded random strings over a palette of awkward pieces.
func TestHFRandom(t *testing.T) { checkEncodeFixture(t, "testdata/hf-random.jsonl", 800) }

func checkEncodeFixture(t *testing.T, path string, min int) {
	tok := qwen25(t)
	cases := readJSONL[refCase](t, path)
	if len(cases) < min {
		t.Fatalf("%s: %d cases, want at least %d", path, len(cases), min)
	}
	for _, c := range cases {
		if got := tok.Encode(c.Text); !equalIDs(got, c.IDs) {
			t.Errorf("Encode(%q)\n got %v\nwant %v", c.Text, got, c.IDs)
		}
	}
}

// TestHFDecode: random id sequences, most of them cutting UTF-8 sequences,
// through Decode and through the streaming decoder.
func TestHFDecode(t *testing.T) {
	tok := qwen25(t)
	type decCase struct {
		IDs  []int  `json:"ids"`
		Text string `json:"text"`
	}
	cases := readJSONL[decCase](t, "testdata/hf-decode.jsonl")
	if len(cases) < 400 {
		t.Fatalf("%d decode cases, want 400", len(cases))
	}
	for _, c := range cases {
		if got := tok.Decode(c.IDs); got != c.Text {
			t.Errorf("Decode(%v) = %q, want %q", c.IDs, got, c.Text)
		}
		if got := streamAll(tok, c.IDs); got != c.Text {
			t.Errorf("stream %v = %q, want %q", c.IDs, got, c.Text)
		}
	}
}

// TestChatPromptIDs: the ChatML prompt of docs/spec/tokenizer.md §7 gives the ids of
// the public fixture quoted there.
func TestChatPromptIDs(t *testing.T) {
	prompt := "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n" +
		"<|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>assistant\n"
	want := []int{151644, 8948, 198, 2610, 525, 1207, 16948, 11, 3465, 553, 54364, 14817, 13, 1446, 525, 264, 10950,
		17847, 13, 151645, 198, 151644, 872, 198, 3838, 374, 279, 6722, 315, 9625, 30, 151645, 198, 151644,
		77091, 198}
	if got := qwen25(t).Encode(prompt); !equalIDs(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

// TestHFAddedTokenFlags: lstrip, rstrip and single_word (unused by Qwen)
// behave like the reference on a Qwen2.5 file edited as
// testdata/gen-hf-cases.js does: <|im_end|> lstrip, <|im_start|> rstrip,
// <tool_call> single_word, <|file_sep|> both strips.
func TestHFAddedTokenFlags(t *testing.T) {
	data, err := os.ReadFile(qwen25Path)
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	flags := map[string][]string{"<|im_end|>": {"lstrip"}, "<|im_start|>": {"rstrip"},
		"<tool_call>": {"single_word"}, "<|file_sep|>": {"lstrip", "rstrip"}}
	for _, a := range f["added_tokens"].([]any) {
		tok := a.(map[string]any)
		for _, flag := range flags[tok["content"].(string)] {
			tok[flag] = true
		}
	}
	tok, err := Parse(mustJSON(t, f))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range readJSONL[refCase](t, "testdata/hf-strip.jsonl") {
		if got := tok.Encode(c.Text); !equalIDs(got, c.IDs) {
			t.Errorf("Encode(%q)\n got %v\nwant %v", c.Text, got, c.IDs)
		}
	}
}
