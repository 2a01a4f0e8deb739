package engine

// A GGUF file's vocabulary (docs/spec/formats.md B.2, tokenizer.ggml.*):
// the tokenizer, its special tokens and end-of-generation ids.

import (
	"fmt"

	"loupe/engine/gguf"
	"loupe/engine/tokenizer"
)

// eogTexts are control tokens that end a generation wherever the file's
// eos_token_id points (llama.cpp's end-of-generation set).
var eogTexts = map[string]bool{"<|endoftext|>": true, "<|im_end|>": true, "<|eot_id|>": true,
	"<|eom_id|>": true, "<|end_of_text|>": true, "<end_of_turn>": true, "<|end|>": true, "</s>": true}

// ggufTokenizer builds the vocabulary of tokenizer.ggml.* (docs/spec/formats.md B.8
// step 11) and the stop ids.
func ggufTokenizer(f *gguf.File, cfg Config) (*tokenizer.Tokenizer, []int, error) {
	bad := func(err error) (*tokenizer.Tokenizer, []int, error) {
		return nil, nil, fmt.Errorf("%w: %w", ErrBadFile, err)
	}
	var v tokenizer.Vocab
	var ok bool
	var err error
	if v.Model, ok, err = f.String("tokenizer.ggml.model"); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("%s: no tokenizer.ggml.model", f.Path)
		}
		return bad(err)
	}
	if v.Pre, _, err = f.String("tokenizer.ggml.pre"); err != nil {
		return bad(err)
	}
	if v.Tokens, ok, err = f.Strings("tokenizer.ggml.tokens"); err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("%s: no tokenizer.ggml.tokens", f.Path)
		}
		return bad(err)
	}
	n := int64(len(v.Tokens))
	if n > int64(cfg.VocabSize) {
		return bad(fmt.Errorf("%s: %d tokens, more than the %d rows of token_embd.weight", f.Path, n, cfg.VocabSize))
	}
	types, _, err := f.Ints("tokenizer.ggml.token_type", 1, 6)
	if err != nil {
		return bad(err)
	}
	for _, t := range types {
		v.Types = append(v.Types, int32(t))
	}
	if v.Scores, _, err = f.Float32s("tokenizer.ggml.scores"); err != nil {
		return bad(err)
	}
	if v.Merges, _, err = f.Strings("tokenizer.ggml.merges"); err != nil {
		return bad(err)
	}
	ids := map[string]int{}
	for _, k := range []string{"bos", "eos", "unknown", "eot", "eom"} {
		id, ok, err := f.Int("tokenizer.ggml."+k+"_token_id", 0, n-1)
		if err != nil {
			return bad(err)
		}
		ids[k] = -1
		if ok {
			ids[k] = int(id)
		}
	}
	v.BOS, v.UNK = ids["bos"], ids["unknown"]
	v.AddBOS = v.Model == "llama" || v.Pre == "llama-bpe" // llama.cpp's defaults
	if b, ok, err := f.Bool("tokenizer.ggml.add_bos_token"); err != nil {
		return bad(err)
	} else if ok {
		v.AddBOS = b
	}
	v.AddBOS = v.AddBOS && v.BOS >= 0
	v.AddSpacePrefix = true
	if b, ok, err := f.Bool("tokenizer.ggml.add_space_prefix"); err != nil {
		return bad(err)
	} else if ok {
		v.AddSpacePrefix = b
	}
	if v.ChatTemplate, _, err = f.String("tokenizer.chat_template"); err != nil {
		return bad(err)
	}
	tok, err := tokenizer.FromVocab(v)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %w", ErrBadFile, f.Path, err)
	}
	var eos []int
	seen := map[int]bool{}
	add := func(id int) {
		if id >= 0 && !seen[id] {
			seen[id] = true
			eos = append(eos, id)
		}
	}
	add(ids["eos"])
	add(ids["eot"])
	add(ids["eom"])
	for id, s := range v.Tokens {
		if eogTexts[s] && tok.IsSpecial(id) {
			add(id)
		}
	}
	return tok, eos, nil
}

// LoadTokenizer reads only the vocabulary of a GGUF model file (for
// `loupe tokenize`), with the same checks as Load.
func LoadTokenizer(path string) (*tokenizer.Tokenizer, error) {
	tok, _, err := ggufVocabOnly(path)
	return tok, err
}

// ggufVocabOnly reads a GGUF file's tokenizer and end-of-generation ids
// without its weights, with the same checks as Load.
func ggufVocabOnly(path string) (_ *tokenizer.Tokenizer, eos []int, err error) {
	defer recoverError(&err)
	f, err := gguf.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrBadFile, err)
	}
	defer f.Close()
	set, err := newGGUFSet(f)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := ggufConfig(f, set)
	if err != nil {
		return nil, nil, err
	}
	return ggufTokenizer(f, cfg)
}
