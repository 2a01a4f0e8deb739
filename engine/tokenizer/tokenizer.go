// Package tokenizer reproduces the reference library's ids exactly
// (docs/spec/tokenizer.md) for two kinds of vocabulary, read from a Hugging
// Face tokenizer.json (parse.go, parse_spm.go) or built from a GGUF file's
// tokenizer.ggml.* arrays by the engine:
//
//   - byte-level BPE (bpe.go, bytelevel.go): Qwen2, Qwen2.5, Qwen3 and
//     Qwen3.5, Llama 3, GPT-2 and SmolLM2, each with its pre-tokenizer
//     pattern (pretok.go, pretok_gpt2.go);
//   - SentencePiece BPE (spm.go): Llama 2, TinyLlama and the llama2.c
//     models, with byte fallback.
//
// Encode: added tokens are cut out of the raw text first (added.go), then
// each other segment is normalised, split by the pre-tokenizer, and merged
// by BPE. No BOS or EOS is added unless the vocabulary's template says so.
// Decode (decode.go) is the inverse. A Tokenizer is safe for concurrent
// use.
package tokenizer

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// Sentinel errors; the returned errors wrap them with the field at fault.
var (
	ErrFormat      = errors.New("bad tokenizer.json")         // malformed or inconsistent
	ErrUnsupported = errors.New("unsupported tokenizer.json") // well-formed, but not a Qwen2-style byte-level BPE
)

// Tokenizer holds a parsed tokenizer.json.
type Tokenizer struct {
	pieces      []string         // id → vocab string as written ("Ġcat"); "" for unused ids
	special     []bool           // id → added token with special=true
	added       []bool           // id → added token
	vocab       map[string]int   // vocab string or added-token content → id
	merges      map[uint64]merge // pairKey(left, right) → rank and result
	byteID      [256]int32       // byte → id of its one-character token
	bytes       []byte           // TokenBytes of every id, concatenated
	offs        []uint32         // id → bytes[offs[id]:offs[id+1]]
	matcher     addedMatcher     // added tokens matched on raw text (normalized=false)
	normMatcher addedMatcher     // added tokens matched after NFC (normalized=true)
	hasNorm     bool             // normMatcher holds any token
	nfc         bool             // normalizer is NFC (false: none)
	split       splitter         // the pre-tokenizer pattern (Qwen2 or Qwen3.5)
	cache       wordCache

	ignoreMerges bool // a piece found whole in the vocab is one token (Llama 3)
	bos          int  // BOS id, -1 when none
	addBOS       bool // Encode starts with BOS
	spm          *spmModel
	template     string // chat template, when the file carries one
}

// Load reads and parses a tokenizer.json file.
func Load(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Encode returns the token ids of text, with every added token (special
// or not) written literally in text matched as its own id, like HF with
// split_special_tokens=false.
func (t *Tokenizer) Encode(text string) []int {
	if t.spm != nil {
		return t.encodeSPM(text, true)
	}
	ids := make([]int, 0, len(text)/4+1)
	if t.addBOS {
		ids = append(ids, t.bos)
	}
	t.matcher.split(text, func(seg string, id int) {
		if id >= 0 {
			ids = append(ids, id)
			return
		}
		ids = t.appendText(ids, seg)
	})
	return ids
}

// EncodeTemplate encodes a rendered chat template as transformers'
// apply_chat_template does (add_special_tokens=False): special tokens in
// the text matched, no BOS added (the template writes its own).
func (t *Tokenizer) EncodeTemplate(text string) []int {
	ids := t.Encode(text)
	if t.addBOS && len(ids) > 0 && ids[0] == t.bos {
		ids = ids[1:]
	}
	return ids
}

// EncodeOrdinary encodes text as plain text: control-token strings in it
// (e.g. a user typing "<|im_end|>") stay ordinary characters. Prompts
// built from user input should use this and add control tokens by id.
func (t *Tokenizer) EncodeOrdinary(text string) []int {
	if t.spm != nil {
		return t.encodeSPM(text, false)
	}
	if t.nfc {
		text = norm.NFC.String(text)
	}
	return t.appendPieces(make([]int, 0, len(text)/4+1), text)
}

// appendText encodes one segment free of raw-matched added tokens: NFC,
// then added tokens with normalized=true (none in Qwen), split, BPE.
func (t *Tokenizer) appendText(ids []int, seg string) []int {
	if t.nfc {
		seg = norm.NFC.String(seg)
	}
	if !t.hasNorm {
		return t.appendPieces(ids, seg)
	}
	t.normMatcher.split(seg, func(s string, id int) {
		if id >= 0 {
			ids = append(ids, id)
		} else {
			ids = t.appendPieces(ids, s)
		}
	})
	return ids
}

// appendPieces splits normalised text into pre-tokens and encodes each.
func (t *Tokenizer) appendPieces(ids []int, text string) []int {
	t.split.split(text, func(piece string) {
		ids = t.appendPiece(ids, piece)
	})
	return ids
}

// maxCachedPiece keeps rare long pieces (whitespace runs, minified code)
// from filling the cache with one-off copies.
const maxCachedPiece = 64

// appendPiece encodes one pre-token through the word cache.
func (t *Tokenizer) appendPiece(ids []int, piece string) []int {
	if len(piece) == 1 {
		return append(ids, int(t.byteID[piece[0]]))
	}
	if cached, ok := t.cache.get(piece); ok {
		return append(ids, cached...)
	}
	n := len(ids)
	if id, ok := t.wholeWord(piece); ok {
		ids = append(ids, id)
	} else {
		ids = t.bpe(ids, piece)
	}
	if len(piece) <= maxCachedPiece {
		t.cache.put(strings.Clone(piece), append([]int(nil), ids[n:]...))
	}
	return ids
}

// VocabSize is the largest id plus one, added tokens included (not the
// model's padded embedding size).
func (t *Tokenizer) VocabSize() int { return len(t.pieces) }

// Piece is the vocab string of id as written in tokenizer.json ("Ġcat"),
// or the content of an added token; "" for an unknown id.
func (t *Tokenizer) Piece(id int) string {
	if id < 0 || id >= len(t.pieces) {
		return ""
	}
	return t.pieces[id]
}

// TokenBytes returns the raw bytes id stands for (an added token: its
// content, e.g. "<|im_end|>"); nil for an unknown id. The slice must not
// be modified.
func (t *Tokenizer) TokenBytes(id int) []byte {
	if id < 0 || id >= len(t.pieces) || t.offs[id] == t.offs[id+1] {
		return nil
	}
	return t.bytes[t.offs[id]:t.offs[id+1]:t.offs[id+1]]
}

// TokenID looks s up exactly among vocab strings and added tokens.
func (t *Tokenizer) TokenID(s string) (int, bool) {
	id, ok := t.vocab[s]
	return id, ok
}

// IsSpecial reports whether id is an added token flagged special (the
// ones skip_special_tokens drops, e.g. <|im_end|>; not <think>).
func (t *Tokenizer) IsSpecial(id int) bool {
	return id >= 0 && id < len(t.special) && t.special[id]
}

// IsAdded reports whether id is an added (control) token.
func (t *Tokenizer) IsAdded(id int) bool {
	return id >= 0 && id < len(t.added) && t.added[id]
}

// wholeWord is ignore_merges: a piece whose byte-level spelling is in the
// vocab is that one token, whatever the merges would make of it.
func (t *Tokenizer) wholeWord(piece string) (int, bool) {
	if !t.ignoreMerges {
		return 0, false
	}
	id, ok := t.vocab[byteLevel(piece)]
	return id, ok && !t.IsAdded(id)
}

// BOS reports the BOS id and whether Encode starts with it (Llama
// vocabularies; Qwen adds none).
func (t *Tokenizer) BOS() (id int, added bool) {
	if t.bos < 0 {
		return -1, false
	}
	return t.bos, t.addBOS
}

// ChatTemplate is the Jinja chat template the model file carries (GGUF
// tokenizer.chat_template), "" when none.
func (t *Tokenizer) ChatTemplate() string { return t.template }
