package tokenizer

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// tinyFile is a small well-formed tokenizer.json: the 256 byte tokens,
// "ab", "abc", "Ġa" (ranked after "ab": " ab" is "Ġ"+"ab"), one added
// special token and two added plain tokens.
func tinyFile() map[string]any {
	vocab := map[string]any{}
	for b := 0; b < 256; b++ {
		vocab[string(byteToRune[b])] = b
	}
	vocab["ab"], vocab["abc"], vocab["Ġa"] = 256, 257, 258
	return map[string]any{
		"added_tokens": []any{
			map[string]any{"id": 300, "content": "<|end|>", "special": true, "normalized": false},
			map[string]any{"id": 301, "content": "<x>", "special": false, "normalized": false},
			map[string]any{"id": 302, "content": "éĊ", "special": false, "normalized": false},
		},
		"normalizer": map[string]any{"type": "NFC"},
		"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Split", "pattern": map[string]any{"Regex": QwenPattern}, "behavior": "Isolated", "invert": false},
			map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": false},
		}},
		"decoder": map[string]any{"type": "ByteLevel"},
		"model": map[string]any{"type": "BPE", "dropout": nil, "vocab": vocab,
			"merges": []any{[]any{"a", "b"}, "ab c", []any{"Ġ", "a"}}},
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestTinyTokenizer: both merge forms, added tokens, accessors.
func TestTinyTokenizer(t *testing.T) {
	tok, err := Parse(mustJSON(t, tinyFile()))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tok.Encode("abc ab a<|end|>x<x>"), []int{257, 32, 256, 258, 300, 'x', 301}; !equalIDs(got, want) {
		t.Errorf("Encode = %v, want %v", got, want)
	}
	if got := tok.EncodeOrdinary("<x>"); !equalIDs(got, []int{'<', 'x', '>'}) {
		t.Errorf("EncodeOrdinary(<x>) = %v", got)
	}
	if tok.VocabSize() != 303 || tok.Piece(258) != "Ġa" || tok.Piece(300) != "<|end|>" || tok.Piece(280) != "" || tok.Piece(-1) != "" {
		t.Errorf("VocabSize %d, pieces %q %q", tok.VocabSize(), tok.Piece(258), tok.Piece(300))
	}
	if string(tok.TokenBytes(258)) != " a" || string(tok.TokenBytes(300)) != "<|end|>" || tok.TokenBytes(280) != nil || tok.TokenBytes(303) != nil {
		t.Errorf("TokenBytes wrong")
	}
	if !tok.IsSpecial(300) || tok.IsSpecial(301) || tok.IsSpecial(258) || !tok.IsAdded(301) || tok.IsAdded(258) {
		t.Errorf("IsSpecial/IsAdded wrong")
	}
	if id, ok := tok.TokenID("<x>"); !ok || id != 301 {
		t.Errorf("TokenID(<x>) = %d %v", id, ok)
	}
	if _, ok := tok.TokenID("zzz"); ok {
		t.Errorf("TokenID(zzz) found")
	}
	if got := tok.Decode([]int{257, 300, 999, -5, 258}); got != "abc<|end|> a" {
		t.Errorf("Decode = %q", got)
	}
	// An added token made of alphabet characters decodes byte-wise, as HF
	// does ("éĊ" → 0xE9 0x0A → U+FFFD "\n").
	if got := tok.Decode([]int{302}); got != "\ufffd\n" {
		t.Errorf("Decode(éĊ) = %q", got)
	}
}

// TestParseErrors: every malformed or unsupported file is rejected with
// an error naming the field, never a panic.
func TestParseErrors(t *testing.T) {
	set := func(path string, v any) func(map[string]any) {
		return func(f map[string]any) {
			keys := strings.Split(path, ".")
			m := f
			for _, k := range keys[:len(keys)-1] {
				m = m[k].(map[string]any)
			}
			if v == nil {
				delete(m, keys[len(keys)-1])
			} else {
				m[keys[len(keys)-1]] = v
			}
		}
	}
	cases := []struct {
		name     string
		edit     func(map[string]any)
		sentinel error
		want     string
	}{
		{"no model", set("model", nil), ErrFormat, "model"},
		{"model type", set("model.type", "WordPiece"), ErrUnsupported, "WordPiece"},
		{"dropout", set("model.dropout", 0.1), ErrUnsupported, "dropout"},
		{"byte_fallback", set("model.byte_fallback", true), ErrUnsupported, "byte_fallback"},
		{"subword prefix", set("model.continuing_subword_prefix", "##"), ErrUnsupported, "continuing_subword_prefix"},
		{"vocab not object", set("model.vocab", []any{1}), ErrFormat, "model.vocab"},
		{"vocab id string", set("model.vocab", map[string]any{"a": "x"}), ErrFormat, "model.vocab"},
		{"vocab negative id", func(f map[string]any) { f["model"].(map[string]any)["vocab"].(map[string]any)["zz"] = -3 }, ErrFormat, "out of range"},
		{"vocab huge id", func(f map[string]any) { f["model"].(map[string]any)["vocab"].(map[string]any)["zz"] = 1 << 40 }, ErrFormat, "out of range"},
		{"duplicate id", func(f map[string]any) { f["model"].(map[string]any)["vocab"].(map[string]any)["zz"] = 5 }, ErrFormat, "id 5"},
		{"missing byte", func(f map[string]any) { delete(f["model"].(map[string]any)["vocab"].(map[string]any), "Ġ") }, ErrFormat, "0x20"},
		{"no merges", set("model.merges", nil), ErrFormat, "merges"},
		{"merge not pair", set("model.merges", []any{[]any{"a"}}), ErrFormat, "model.merges[0]"},
		{"merge no space", set("model.merges", []any{"ab"}), ErrFormat, "model.merges[0]"},
		{"merge number", set("model.merges", []any{[]any{"a", "b"}, 7}), ErrFormat, "model.merges[1]"},
		{"merge unknown", set("model.merges", []any{[]any{"a", "b"}, []any{"q", "r"}}), ErrFormat, `"q" + "r"`},
		{"normalizer", set("normalizer", map[string]any{"type": "NFKC"}), ErrUnsupported, "NFKC"},
		{"decoder", set("decoder", map[string]any{"type": "Metaspace"}), ErrUnsupported, "Metaspace"},
		{"no pre_tokenizer", set("pre_tokenizer", nil), ErrUnsupported, "pre_tokenizer"},
		{"other regex", func(f map[string]any) {
			p := f["pre_tokenizer"].(map[string]any)["pretokenizers"].([]any)[0].(map[string]any)
			p["pattern"] = map[string]any{"Regex": strings.Replace(QwenPattern, `\p{N}|`, `\p{N}{1,2}|`, 1)}
		}, ErrUnsupported, "Qwen2, Qwen3.5 or Llama 3 regex"},
		{"prefix space", func(f map[string]any) {
			f["pre_tokenizer"].(map[string]any)["pretokenizers"].([]any)[1].(map[string]any)["add_prefix_space"] = true
		}, ErrUnsupported, "ByteLevel"},
		{"added empty", set("added_tokens", []any{map[string]any{"id": 300, "content": ""}}), ErrFormat, "added_tokens[0]"},
		{"added bad id", set("added_tokens", []any{map[string]any{"id": -1, "content": "x"}}), ErrFormat, "added_tokens[0]"},
	}
	for _, c := range cases {
		f := tinyFile()
		c.edit(f)
		_, err := Parse(mustJSON(t, f))
		if err == nil || !errors.Is(err, c.sentinel) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %v mentioning %q", c.name, err, c.sentinel, c.want)
		}
	}
	for _, raw := range []string{"", "{", "[]", "null", `{"model": 3}`, `{"model": {"vocab": {"a": 1}, "merges": "x"}}`} {
		if _, err := Parse([]byte(raw)); err == nil || !errors.Is(err, ErrFormat) && !errors.Is(err, ErrUnsupported) {
			t.Errorf("Parse(%q): err = %v", raw, err)
		}
	}
}

// TestLoadErrors: a missing file names the path; a bad one too.
func TestLoadErrors(t *testing.T) {
	if _, err := Load("no/such/tokenizer.json"); err == nil || !strings.Contains(err.Error(), "no/such/tokenizer.json") {
		t.Errorf("missing file: %v", err)
	}
	bad := t.TempDir() + "/tokenizer.json"
	if err := os.WriteFile(bad, []byte(`{"model":`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), bad) || !errors.Is(err, ErrFormat) {
		t.Errorf("bad file: %v", err)
	}
}

// TestQwenFacts: the Qwen2.5 file's sizes and control tokens.
func TestQwenFacts(t *testing.T) {
	tok := qwen25(t)
	if tok.VocabSize() != 151665 {
		t.Errorf("VocabSize = %d, want 151665", tok.VocabSize())
	}
	for _, c := range []struct {
		s       string
		id      int
		special bool
	}{{"<|endoftext|>", 151643, true}, {"<|im_start|>", 151644, true}, {"<|im_end|>", 151645, true},
		{"<tool_call>", 151657, false}, {"<|file_sep|>", 151664, false}, {"Ġ", 220, false}, {"Ċ", 198, false}} {
		id, ok := tok.TokenID(c.s)
		if !ok || id != c.id || tok.IsSpecial(id) != c.special || tok.Piece(id) != c.s {
			t.Errorf("%q: id %d %v special %v", c.s, id, ok, tok.IsSpecial(id))
		}
	}
	if _, ok := tok.TokenID("<think>"); ok {
		t.Errorf("<think> is a token in Qwen2.5")
	}
	if got := tok.Decode([]int{151644, 872, 198, 6023, 151645, 151700}); got != "<|im_start|>user\nhi<|im_end|>" {
		t.Errorf("Decode = %q", got)
	}
	if got := tok.EncodeOrdinary("<|im_end|>"); len(got) < 2 {
		t.Errorf("EncodeOrdinary matched a control token: %v", got)
	}
}
