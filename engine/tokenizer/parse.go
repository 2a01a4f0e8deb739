package tokenizer

import (
	"encoding/json"
	"fmt"
	"math"

	"golang.org/x/text/unicode/norm"
)

// file is the part of tokenizer.json the tokenizer reads.
type file struct {
	AddedTokens   []addedToken    `json:"added_tokens"`
	Normalizer    json.RawMessage `json:"normalizer"`
	PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
	PostProcessor json.RawMessage `json:"post_processor"`
	Decoder       json.RawMessage `json:"decoder"`
	Model         *bpeModel       `json:"model"`
}

type bpeModel struct {
	Type                    string          `json:"type"`
	ByteFallback            bool            `json:"byte_fallback"`
	UnkToken                *string         `json:"unk_token"`
	Dropout                 *float64        `json:"dropout"`
	ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string         `json:"end_of_word_suffix"`
	IgnoreMerges            bool            `json:"ignore_merges"`
	Vocab                   json.RawMessage `json:"vocab"`
	Merges                  json.RawMessage `json:"merges"`
}

// Parse reads the contents of a tokenizer.json. It accepts the Qwen2
// family's setup only (NFC, the Qwen split pattern, byte-level BPE) and
// checks that the vocab, merges and added tokens are consistent, so that
// Encode cannot fail later.
func Parse(data []byte) (*Tokenizer, error) {
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if f.Model == nil {
		return nil, fmt.Errorf("%w: no \"model\"", ErrFormat)
	}
	t := &Tokenizer{bos: -1}
	var err error
	if sp, ok, err := spmSetup(&f); err != nil {
		return nil, err
	} else if ok {
		return t, t.parseSPM(&f, sp)
	}
	if t.nfc, err = checkNormalizer(f.Normalizer); err != nil {
		return nil, err
	}
	if t.split, err = checkPreTokenizer(f.PreTokenizer); err != nil {
		return nil, err
	}
	if err = checkDecoder(f.Decoder); err != nil {
		return nil, err
	}
	if err = checkModel(f.Model); err != nil {
		return nil, err
	}
	t.ignoreMerges = f.Model.IgnoreMerges
	if t.bos, t.addBOS, err = templateBOS(f.PostProcessor, f.AddedTokens); err != nil {
		return nil, err
	}
	vocab, err := readVocab(f.Model.Vocab)
	if err != nil {
		return nil, fmt.Errorf("%w: model.vocab: %v", ErrFormat, err)
	}
	if len(vocab) == 0 {
		return nil, fmt.Errorf("%w: model.vocab is empty", ErrFormat)
	}
	if err = t.setVocab(vocab, f.AddedTokens); err != nil {
		return nil, err
	}
	if err = t.setMerges(f.Model.Merges); err != nil {
		return nil, err
	}
	t.setAdded(f.AddedTokens)
	t.setBytes()
	if err := t.checkBOS(); err != nil {
		return nil, err
	}
	return t, nil
}

// checkBOS refuses a post-processor BOS that is no token of the file.
func (t *Tokenizer) checkBOS() error {
	if t.addBOS && (t.bos >= len(t.pieces) || t.pieces[t.bos] == "") {
		return fmt.Errorf("%w: post_processor: BOS id %d is not in the vocab", ErrFormat, t.bos)
	}
	return nil
}

// checkNormalizer accepts no normalizer or NFC and reports whether NFC applies.
func checkNormalizer(raw json.RawMessage) (bool, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return false, nil
	}
	var n struct{ Type string }
	if err := json.Unmarshal(raw, &n); err != nil {
		return false, fmt.Errorf("%w: normalizer: %v", ErrFormat, err)
	}
	if n.Type != "NFC" {
		return false, fmt.Errorf("%w: normalizer %q (only NFC)", ErrUnsupported, n.Type)
	}
	return true, nil
}

// checkPreTokenizer accepts Sequence[Split(QwenPattern or Qwen35Pattern,
// Isolated), ByteLevel(add_prefix_space=false, use_regex=false)]: the
// hand-written splitter implements those patterns and no other.
func checkPreTokenizer(raw json.RawMessage) (splitter, error) {
	type step struct {
		Type           string
		Pattern        struct{ Regex, String *string }
		Behavior       string
		Invert         bool
		AddPrefixSpace bool `json:"add_prefix_space"`
		UseRegex       bool `json:"use_regex"`
	}
	var p struct {
		Type          string
		Pretokenizers []step
	}
	if len(raw) == 0 || string(raw) == "null" {
		return splitter{}, fmt.Errorf("%w: no pre_tokenizer (want Split + ByteLevel)", ErrUnsupported)
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return splitter{}, fmt.Errorf("%w: pre_tokenizer: %v", ErrFormat, err)
	}
	// GPT-2 (ByteLevel with its own regex) and SmolLM (Digits first)
	if p.Type == "ByteLevel" || p.Type == "Sequence" && len(p.Pretokenizers) == 2 && p.Pretokenizers[0].Type == "Digits" {
		var d struct {
			IndividualDigits bool `json:"individual_digits"`
		}
		bl, sp := step{Type: p.Type}, splitter{kind: kindGPT2}
		if p.Type == "ByteLevel" {
			if err := json.Unmarshal(raw, &bl); err != nil {
				return splitter{}, fmt.Errorf("%w: pre_tokenizer: %v", ErrFormat, err)
			}
		} else {
			var seq struct{ Pretokenizers []json.RawMessage }
			if err := json.Unmarshal(raw, &seq); err != nil || json.Unmarshal(seq.Pretokenizers[0], &d) != nil {
				return splitter{}, fmt.Errorf("%w: pre_tokenizer Digits: %v", ErrFormat, err)
			}
			if !d.IndividualDigits {
				return splitter{}, fmt.Errorf("%w: pre_tokenizer: Digits without individual_digits", ErrUnsupported)
			}
			bl, sp = p.Pretokenizers[1], splitter{kind: kindSmolLM}
		}
		if bl.Type != "ByteLevel" || bl.AddPrefixSpace || !bl.UseRegex {
			return splitter{}, fmt.Errorf("%w: pre_tokenizer: ByteLevel must use its regex, without prefix space", ErrUnsupported)
		}
		return sp, nil
	}
	if p.Type != "Sequence" || len(p.Pretokenizers) != 2 {
		return splitter{}, fmt.Errorf("%w: pre_tokenizer %q: want a Sequence of Split and ByteLevel", ErrUnsupported, p.Type)
	}
	split, bl := p.Pretokenizers[0], p.Pretokenizers[1]
	if split.Type != "Split" || split.Pattern.Regex == nil || *split.Pattern.Regex != QwenPattern && *split.Pattern.Regex != Qwen35Pattern && *split.Pattern.Regex != Llama3Pattern {
		return splitter{}, fmt.Errorf("%w: pre_tokenizer: first step must be Split with the Qwen2, Qwen3.5 or Llama 3 regex", ErrUnsupported)
	}
	if split.Behavior != "Isolated" || split.Invert {
		return splitter{}, fmt.Errorf("%w: pre_tokenizer: Split behavior %q invert %v (want Isolated, false)", ErrUnsupported, split.Behavior, split.Invert)
	}
	if bl.Type != "ByteLevel" || bl.AddPrefixSpace || bl.UseRegex {
		return splitter{}, fmt.Errorf("%w: pre_tokenizer: second step must be ByteLevel without prefix space or regex", ErrUnsupported)
	}
	if *split.Pattern.Regex == Llama3Pattern {
		return splitter{digits: 3}, nil
	}
	return splitter{marks: *split.Pattern.Regex == Qwen35Pattern}, nil
}

// checkDecoder accepts the ByteLevel decoder. A file without a decoder is
// decoded the same way, the only one that makes sense for a byte-level
// vocab.
func checkDecoder(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var d struct{ Type string }
	if err := json.Unmarshal(raw, &d); err != nil {
		return fmt.Errorf("%w: decoder: %v", ErrFormat, err)
	}
	if d.Type != "ByteLevel" {
		return fmt.Errorf("%w: decoder %q (only ByteLevel)", ErrUnsupported, d.Type)
	}
	return nil
}

// checkModel accepts a plain BPE: no dropout, no subword prefix or suffix.
func checkModel(m *bpeModel) error {
	if m.Type != "" && m.Type != "BPE" {
		return fmt.Errorf("%w: model type %q (only BPE)", ErrUnsupported, m.Type)
	}
	if m.ByteFallback {
		return fmt.Errorf("%w: model.byte_fallback with a byte-level pre-tokenizer", ErrUnsupported)
	}
	if m.Dropout != nil && *m.Dropout != 0 {
		return fmt.Errorf("%w: model.dropout %v (only null)", ErrUnsupported, *m.Dropout)
	}
	if p := m.ContinuingSubwordPrefix; p != nil && *p != "" {
		return fmt.Errorf("%w: model.continuing_subword_prefix %q", ErrUnsupported, *p)
	}
	if s := m.EndOfWordSuffix; s != nil && *s != "" {
		return fmt.Errorf("%w: model.end_of_word_suffix %q", ErrUnsupported, *s)
	}
	if len(m.Vocab) == 0 || len(m.Merges) == 0 {
		return fmt.Errorf("%w: model.vocab or model.merges missing", ErrFormat)
	}
	return nil
}

// maxID bounds ids so that a corrupt file cannot make Parse allocate
// gigabytes (Qwen's largest is 151668).
const maxID = 1 << 24

// setVocab fills the id tables from the vocab and the added tokens and
// checks that every byte has its one-character token.
func (t *Tokenizer) setVocab(vocab map[string]int, added []addedToken) error {
	if err := t.setTables(vocab, added); err != nil {
		return err
	}
	for b := 0; b < 256; b++ {
		id, ok := vocab[string(byteToRune[b])]
		if !ok {
			return fmt.Errorf("%w: model.vocab lacks the byte-level token %q for byte 0x%02X", ErrFormat, string(byteToRune[b]), b)
		}
		t.byteID[b] = int32(id)
	}
	return nil
}

// setTables fills the id tables from the vocab and the added tokens.
func (t *Tokenizer) setTables(vocab map[string]int, added []addedToken) error {
	size := 0
	for s, id := range vocab {
		if id < 0 || id >= maxID {
			return fmt.Errorf("%w: model.vocab[%q] = %d out of range", ErrFormat, s, id)
		}
		size = max(size, id+1)
	}
	for i, a := range added {
		if a.ID < 0 || a.ID >= maxID || a.Content == "" {
			return fmt.Errorf("%w: added_tokens[%d]: id %d content %q", ErrFormat, i, a.ID, a.Content)
		}
		size = max(size, a.ID+1)
	}
	t.pieces = make([]string, size)
	t.special = make([]bool, size)
	t.added = make([]bool, size)
	t.vocab = vocab // added tokens join it after the merges are checked
	for s, id := range vocab {
		if t.pieces[id] != "" {
			return fmt.Errorf("%w: model.vocab: id %d used by %q and %q", ErrFormat, id, t.pieces[id], s)
		}
		t.pieces[id] = s
	}
	return nil
}

// setMerges reads the merges, each "left right" or ["left", "right"], and
// checks that both sides and their concatenation are in the vocab.
func (t *Tokenizer) setMerges(raw []byte) error {
	t.merges = make(map[uint64]merge, len(raw)/24)
	err := readMerges(raw, func(rank int, a, b []byte) error { return t.addMerge(rank, string(a), string(b)) })
	if err != nil {
		return fmt.Errorf("%w: model.merges%v", ErrFormat, err)
	}
	return nil
}

// addMerge enters merge number rank, a + b, checking that both sides and
// their concatenation are in the vocab; the first (highest-priority) rank
// of a pair wins.
func (t *Tokenizer) addMerge(rank int, a, b string) error {
	ia, okA := t.vocab[a]
	ib, okB := t.vocab[b]
	ic, okC := t.vocab[a+b]
	if !okA || !okB || !okC || rank >= math.MaxInt32 {
		return fmt.Errorf("%q + %q: token not in vocab", a, b)
	}
	key := pairKey(int32(ia), int32(ib))
	if _, dup := t.merges[key]; !dup {
		t.merges[key] = merge{rank: int32(rank), id: int32(ic)}
	}
	return nil
}

// setAdded enters the added tokens in the id tables and builds the
// matchers: raw text for normalized=false tokens, NFC text (with NFC
// content) for normalized=true.
func (t *Tokenizer) setAdded(added []addedToken) {
	var raw, normed []addedToken
	for _, a := range added {
		t.pieces[a.ID], t.vocab[a.Content] = a.Content, a.ID
		t.special[a.ID], t.added[a.ID] = a.Special, true
		if a.Normalized && t.nfc {
			a.Content = norm.NFC.String(a.Content)
		}
		if a.Normalized {
			normed = append(normed, a)
		} else {
			raw = append(raw, a)
		}
	}
	t.matcher = newAddedMatcher(raw)
	t.normMatcher = newAddedMatcher(normed)
	t.hasNorm = len(normed) > 0
}

// setBytes precomputes TokenBytes for every id into one buffer.
func (t *Tokenizer) setBytes() {
	t.offs = make([]uint32, len(t.pieces)+1)
	t.bytes = make([]byte, 0, len(t.pieces)*6)
	for id, p := range t.pieces {
		// Added tokens go through the ByteLevel decoder too, as in HF: a
		// content made only of alphabet characters ("ĊĊ") becomes its bytes.
		// Qwen's control tokens are printable ASCII, so they stay as written.
		t.bytes = appendPieceBytes(t.bytes, p)
		t.offs[id+1] = uint32(len(t.bytes))
	}
}
