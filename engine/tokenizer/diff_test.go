package tokenizer

import (
	"os"
	"testing"
)

// TestExternalCases compares with a JSONL file of {text, ids} named by
// LOUPE_TOKENIZER_CASES (made with the reference tokenizer, e.g. by
// testdata/gen-hf-cases.js); skipped when unset. LOUPE_TOKENIZER_JSON
// names another tokenizer.json than the Qwen2.5 one.
func TestExternalCases(t *testing.T) {
	path := os.Getenv("LOUPE_TOKENIZER_CASES")
	if path == "" {
		t.Skip("LOUPE_TOKENIZER_CASES not set")
	}
	tok := qwen25(t)
	if other := os.Getenv("LOUPE_TOKENIZER_JSON"); other != "" {
		var err error
		if tok, err = Load(other); err != nil {
			t.Fatal(err)
		}
	}
	bad := 0
	for _, c := range readJSONL[refCase](t, path) {
		if got := tok.Encode(c.Text); !equalIDs(got, c.IDs) {
			bad++
			if bad <= 20 {
				t.Errorf("Encode(%q)\n got %v\nwant %v", c.Text, got, c.IDs)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d mismatches", bad)
	}
}

// TestExternalDecode compares Decode and the streaming decoder with a JSONL
// file of {ids, text} named by LOUPE_TOKENIZER_DECODE (the reference
// decode, e.g. by testdata/gen-hf-cases.js); skipped when unset.
func TestExternalDecode(t *testing.T) {
	path := os.Getenv("LOUPE_TOKENIZER_DECODE")
	if path == "" {
		t.Skip("LOUPE_TOKENIZER_DECODE not set")
	}
	tok := qwen25(t)
	type decCase struct {
		IDs  []int  `json:"ids"`
		Text string `json:"text"`
	}
	bad := 0
	for _, c := range readJSONL[decCase](t, path) {
		got, streamed := tok.Decode(c.IDs), streamAll(tok, c.IDs)
		if got != c.Text || streamed != c.Text {
			bad++
			if bad <= 20 {
				t.Errorf("Decode(%v)\n     got %q\nstreamed %q\n    want %q", c.IDs, got, streamed, c.Text)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d mismatches", bad)
	}
}
