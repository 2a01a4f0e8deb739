package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLlamaTokenizerJSON: the small tokenizer.json files of
// testdata/small (the real Llama 2 and Llama 3 files cut to their first
// merges, and variants with the Metaspace, SmolLM and GPT-2 pre-tokenizers;
// tools/tokfixtures/make_small.py) encode and decode as Hugging Face
// tokenizers does (NAME.cases.jsonl, written by tools/tokfixtures/gen_cases.js
// with the Rust library): ids with the post-processor's BOS, and the text of
// decode(ids, skip_special_tokens=true).
func TestLlamaTokenizerJSON(t *testing.T) {
	for _, name := range []string{"llama2", "llama2-metaspace", "llama3", "smollm", "gpt2"} {
		t.Run(name, func(t *testing.T) {
			tok, err := Load(filepath.Join("testdata", "small", name+".tokenizer.json"))
			if err != nil {
				t.Fatal(err)
			}
			n, decoded := 0, 0
			for _, c := range smallCases(t, name) {
				n++
				if got := tok.Encode(c.Text); !slices.Equal(got, c.IDs) {
					t.Errorf("Encode(%q) = %v, tokenizers gives %v", c.Text, got, c.IDs)
					continue
				}
				prev, ids := -1, c.IDs
				if bos, add := tok.BOS(); add {
					prev, ids = bos, ids[1:]
				}
				if tok.spm == nil && slices.ContainsFunc(ids, tok.IsSpecial) {
					continue // byte-level text keeps special tokens (as Qwen's does)
				}
				if got := tok.DecodeText(prev, ids); got != c.Decoded {
					t.Errorf("DecodeText(%v) = %q, tokenizers gives %q", c.IDs, got, c.Decoded)
				}
				decoded++
			}
			if n < 400 || decoded < 300 {
				t.Fatalf("%d cases, %d decoded", n, decoded)
			}
			wantBOS, _ := tok.TokenID(map[string]string{"llama2": "<s>", "llama2-metaspace": "<s>", "llama3": "<|begin_of_text|>"}[name])
			if bos, add := tok.BOS(); add != (wantBOS > 0) || add && bos != wantBOS {
				t.Errorf("BOS %d %v, want %d", bos, add, wantBOS)
			}
		})
	}
}

// hfCase is one line of testdata/small/NAME.cases.jsonl: a text, its ids
// from Hugging Face tokenizers (with the post-processor's BOS) and
// decode(ids, skip_special_tokens=true).
type hfCase struct {
	Text, Decoded string
	IDs           []int
}

// smallCases reads testdata/small/NAME.cases.jsonl.
func smallCases(t *testing.T, name string) []hfCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "small", name+".cases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []hfCase
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var c hfCase
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// TestSPMScoresMatchHF: the same small Llama 2 vocabulary as a GGUF
// "llama" vocabulary — scores instead of merges, SentencePiece's order
// (a piece's score falls with its id, as in Llama 2's tokenizer.model),
// token types as convert_hf_to_gguf.py writes them — encodes every
// text of llama2.cases.jsonl as Hugging Face does with the merges:
// llama.cpp's score-driven merging agrees with the ranked merges.
func TestSPMScoresMatchHF(t *testing.T) {
	hf, err := Load(filepath.Join("testdata", "small", "llama2.tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	v := Vocab{Model: "llama", BOS: 1, UNK: 0, AddBOS: true, AddSpacePrefix: true}
	for id := range hf.VocabSize() {
		p, typ := hf.Piece(id), int32(typeNormal)
		switch {
		case id == 0:
			typ = typeUnknown
		case hf.IsSpecial(id):
			typ = typeControl
		case len(hf.TokenBytes(id)) == 1 && hf.spm.byteTok[hf.TokenBytes(id)[0]] == id:
			typ = typeByte
		}
		v.Tokens, v.Types, v.Scores = append(v.Tokens, p), append(v.Types, typ), append(v.Scores, -float32(id))
	}
	tok, err := FromVocab(v)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range smallCases(t, "llama2") {
		if got := tok.Encode(c.Text); !slices.Equal(got, c.IDs) {
			t.Errorf("GGUF-style Encode(%q) = %v, tokenizers gives %v", c.Text, got, c.IDs)
		}
		if got := tok.DecodeText(1, c.IDs[1:]); got != c.Decoded {
			t.Errorf("GGUF-style DecodeText(%v) = %q, tokenizers gives %q", c.IDs, got, c.Decoded)
		}
		n++
	}
	if n < 400 {
		t.Fatalf("%d cases", n)
	}
}

// TestGGUFBPEVocabMatchesHF: the byte-level cuts (Llama 3, SmolLM2, GPT-2)
// written as GGUF lists (Lists, as convert_hf_to_gguf.py writes them) with
// the tokenizer.ggml.pre llama.cpp gives those models encode every text of
// their cases as Hugging Face does: llama.cpp's regex lists agree with the
// HF pre-tokenizers on these texts.
func TestGGUFBPEVocabMatchesHF(t *testing.T) {
	for _, tc := range []struct{ file, pre string }{{"llama3", "llama-bpe"}, {"smollm", "smollm"}, {"gpt2", "gpt-2"}} {
		t.Run(tc.file, func(t *testing.T) {
			hf, err := Load(filepath.Join("testdata", "small", tc.file+".tokenizer.json"))
			if err != nil {
				t.Fatal(err)
			}
			tokens, types, merges := hf.Lists(hf.VocabSize())
			bos, add := hf.BOS()
			tok, err := FromVocab(Vocab{Model: "gpt2", Pre: tc.pre, Tokens: tokens, Types: types, Merges: merges, BOS: bos, UNK: -1, AddBOS: add})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range smallCases(t, tc.file) {
				if got := tok.Encode(c.Text); !slices.Equal(got, c.IDs) {
					t.Errorf("GGUF %s Encode(%q) = %v, tokenizers gives %v", tc.pre, c.Text, got, c.IDs)
				}
			}
		})
	}
}
