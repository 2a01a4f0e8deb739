package tokenizer

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Vocab is a vocabulary stored as lists, the way GGUF files carry it
// (docs/spec/formats.md B.2: tokenizer.ggml.*). Types are llama.cpp's token types: 1
// normal, 2 unknown, 3 control, 4 user-defined, 5 unused, 6 byte.
type Vocab struct {
	Model          string // "gpt2" (byte-level BPE) or "llama" (SentencePiece)
	Pre            string // gpt2 pre-tokenizer: "qwen2", "llama-bpe", "gpt-2", "smollm", "default" (or "")
	Tokens         []string
	Types          []int32   // nil: all normal
	Scores         []float32 // llama: one per token
	Merges         []string  // gpt2: "left right"
	BOS, UNK       int       // -1 when none
	AddBOS         bool
	AddSpacePrefix bool // llama: prepend ▁ (tokenizer.ggml.add_space_prefix, default true)
	ChatTemplate   string
}

const (
	typeNormal      = 1
	typeUnknown     = 2
	typeControl     = 3
	typeUserDefined = 4
	typeUnused      = 5
	typeByte        = 6
)

// FromVocab builds a tokenizer from a list vocabulary, checking it as
// docs/spec/formats.md B.8 step 11 asks (equal lengths, ids in range, merges with
// one space), so Encode cannot fail later.
func FromVocab(v Vocab) (_ *Tokenizer, err error) {
	defer func() { err = vocabError(err) }()
	n := len(v.Tokens)
	switch {
	case n == 0 || n > maxID:
		return nil, fmt.Errorf("%w: %d tokens", ErrFormat, n)
	case v.Types != nil && len(v.Types) != n:
		return nil, fmt.Errorf("%w: %d tokenizer.ggml.token_type entries for %d tokens", ErrFormat, len(v.Types), n)
	case v.Scores != nil && len(v.Scores) != n:
		return nil, fmt.Errorf("%w: %d tokenizer.ggml.scores for %d tokens", ErrFormat, len(v.Scores), n)
	case v.BOS >= n || v.UNK >= n:
		return nil, fmt.Errorf("%w: BOS %d or UNK %d not below the %d tokens", ErrFormat, v.BOS, v.UNK, n)
	case v.AddBOS && v.BOS < 0:
		return nil, fmt.Errorf("%w: add_bos_token is true but there is no bos_token_id", ErrFormat)
	}
	typ := func(i int) int32 {
		if v.Types == nil {
			return typeNormal
		}
		return v.Types[i]
	}
	for i := range n {
		if k := typ(i); k < 1 || k > 6 {
			return nil, fmt.Errorf("%w: token %d has type %d (want 1…6)", ErrFormat, i, k)
		}
	}
	t := &Tokenizer{bos: max(-1, v.BOS), addBOS: v.AddBOS, template: v.ChatTemplate}
	switch v.Model {
	case "gpt2":
		return t, t.fromBPEVocab(v, typ)
	case "llama":
		return t, t.fromSPMVocab(v, typ)
	}
	return nil, fmt.Errorf("%w: tokenizer.ggml.model %q (Loupe reads \"gpt2\" and \"llama\")", ErrUnsupported, v.Model)
}

// fromBPEVocab: byte-level BPE; control and user-defined tokens are
// added tokens matched in raw text (control ones special), unused ids
// ([PAD…] rows) stay empty.
func (t *Tokenizer) fromBPEVocab(v Vocab, typ func(int) int32) error {
	switch v.Pre {
	case "qwen2":
		t.nfc = true
	case "qwen35": // Qwen3.5: Qwen2's with marks joining letters (Qwen35Pattern)
		t.nfc, t.split.marks = true, true
	case "llama-bpe", "llama3", "dbrx", "smaug-bpe":
		t.split.digits, t.ignoreMerges = 3, true
	case "gpt-2", "gpt2", "mpt", "olmo", "jais", "trillion":
		t.split.kind = kindGPT2
	case "smollm", "starcoder", "refact", "command-r", "codeshell", "exaone", "minerva-7b":
		t.split.kind = kindSmolLM
	case "default", "":
		t.split.kind = kindDefault // llama.cpp's fallback, also when the key is absent
	default:
		return fmt.Errorf("%w: tokenizer.ggml.pre %q (Loupe reads qwen2, qwen35, llama-bpe, gpt-2, smollm, default and their aliases)", ErrUnsupported, v.Pre)
	}
	vocab := make(map[string]int, len(v.Tokens))
	var added []addedToken
	for i, s := range v.Tokens {
		switch typ(i) {
		case typeNormal, typeByte:
			if _, dup := vocab[s]; !dup {
				vocab[s] = i
			}
		case typeUnknown, typeControl, typeUserDefined:
			if s != "" {
				added = append(added, addedToken{ID: i, Content: s, Special: typ(i) != typeUserDefined})
			}
		}
	}
	if err := t.setVocab(vocab, added); err != nil {
		return err
	}
	t.merges = make(map[uint64]merge, len(v.Merges))
	for rank, m := range v.Merges {
		a, b, ok := strings.Cut(m, " ")
		if !ok || a == "" || b == "" || strings.Contains(b, " ") {
			return fmt.Errorf("%w: tokenizer.ggml.merges[%d] %q is not \"left right\"", ErrFormat, rank, m)
		}
		if err := t.addMerge(rank, a, b); err != nil {
			return fmt.Errorf("%w: tokenizer.ggml.merges[%d]: %v", ErrFormat, rank, err)
		}
	}
	t.setAdded(added)
	t.setBytes()
	return nil
}

// fromSPMVocab: SentencePiece with scores; unknown, control and
// user-defined tokens are matched in raw text (llama.cpp's special-token
// partition), byte tokens are the fallback.
func (t *Tokenizer) fromSPMVocab(v Vocab, typ func(int) int32) error {
	if v.Scores == nil {
		return fmt.Errorf("%w: a llama vocabulary needs tokenizer.ggml.scores", ErrFormat)
	}
	n := len(v.Tokens)
	sp := &spmModel{scores: v.Scores, unk: max(-1, v.UNK), stripFirst: v.AddSpacePrefix}
	if v.AddSpacePrefix {
		sp.prefix = prefixEvery
	}
	for b := range sp.byteTok {
		sp.byteTok[b] = -1
	}
	t.spm = sp
	t.pieces, t.special, t.added = make([]string, n), make([]bool, n), make([]bool, n)
	t.vocab = make(map[string]int, n)
	// Without token types, <0xXX> pieces are the byte tokens, as in
	// SentencePiece's own models.
	isByte := func(i int) bool {
		_, ok := byteTokenValue(v.Tokens[i])
		return ok && (typ(i) == typeByte || v.Types == nil)
	}
	var added []addedToken
	for i, s := range v.Tokens {
		t.pieces[i] = s
		if _, dup := t.vocab[s]; !dup && s != "" {
			t.vocab[s] = i
		}
		if isByte(i) {
			b, _ := byteTokenValue(s)
			sp.byteTok[b] = i
			continue
		}
		switch typ(i) {
		case typeUnknown, typeControl, typeUserDefined:
			if s != "" {
				added = append(added, addedToken{ID: i, Content: s, Special: typ(i) != typeUserDefined})
			}
		}
	}
	for _, a := range added {
		t.special[a.ID], t.added[a.ID] = a.Special, true
	}
	t.matcher = newAddedMatcher(added)
	t.setBytesSPM(isByte)
	return nil
}

// Lists returns a byte-level BPE tokenizer as GGUF stores it (what
// convert_hf_to_gguf.py writes): one token per id up to size (ids without a
// token as "[PADn]", unused), their types (added tokens control when
// special, else user-defined), and the merges "left right" by rank.
func (t *Tokenizer) Lists(size int) (tokens []string, types []int32, merges []string) {
	tokens, types = make([]string, max(size, len(t.pieces))), make([]int32, max(size, len(t.pieces)))
	for id := range tokens {
		switch {
		case id >= len(t.pieces) || t.pieces[id] == "":
			tokens[id], types[id] = fmt.Sprintf("[PAD%d]", id), typeUnused
		case t.IsSpecial(id):
			tokens[id], types[id] = t.pieces[id], typeControl
		case t.IsAdded(id):
			tokens[id], types[id] = t.pieces[id], typeUserDefined
		default:
			tokens[id], types[id] = t.pieces[id], typeNormal
		}
	}
	merges = make([]string, 0, len(t.merges))
	ranks := make([]int32, 0, len(t.merges))
	for k, m := range t.merges {
		a, b := int32(k>>32), int32(uint32(k))
		merges = append(merges, t.pieces[a]+" "+t.pieces[b])
		ranks = append(ranks, m.rank)
	}
	sort.Sort(byRank{merges, ranks})
	return tokens, types, merges
}

type byRank struct {
	s []string
	r []int32
}

func (b byRank) Len() int           { return len(b.s) }
func (b byRank) Less(i, j int) bool { return b.r[i] < b.r[j] }
func (b byRank) Swap(i, j int) {
	b.s[i], b.s[j] = b.s[j], b.s[i]
	b.r[i], b.r[j] = b.r[j], b.r[i]
}

// vocabError words an error of FromVocab for a vocabulary that came as
// lists (GGUF's tokenizer.ggml.* keys): ErrFormat and ErrUnsupported say
// "tokenizer.json", which such a model does not have, and the checks
// shared with the tokenizer.json reader name its fields (model.vocab).
// errors.Is still finds ErrFormat or ErrUnsupported.
func vocabError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, kind := range []error{ErrFormat, ErrUnsupported} {
		if errors.Is(err, kind) {
			what := strings.Replace(kind.Error(), "tokenizer.json", "tokenizer vocabulary (tokenizer.ggml.*)", 1)
			msg = strings.Replace(msg, kind.Error(), what, 1)
		}
	}
	msg = strings.ReplaceAll(msg, "model.vocab", "tokenizer.ggml.tokens")
	return &wordedError{msg: msg, err: err}
}

// wordedError is err with another message.
type wordedError struct {
	msg string
	err error
}

func (e *wordedError) Error() string { return e.msg }
func (e *wordedError) Unwrap() error { return e.err }
