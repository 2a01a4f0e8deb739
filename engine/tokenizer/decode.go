package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// Decode returns the text of ids: the bytes of every token concatenated
// and read as UTF-8, each maximal invalid subpart replaced by one U+FFFD
// (Python errors="replace", Rust from_utf8_lossy). Special tokens are
// kept; unknown ids produce nothing.
func (t *Tokenizer) Decode(ids []int) string {
	var buf []byte
	for _, id := range ids {
		buf = append(buf, t.TokenBytes(id)...)
	}
	return decodeLossy(buf)
}

// DecodeText is the running text ids make after token prev (-1: none),
// the way a reference prints a generation (TextBytes of each token, the
// bytes of every token assembled before they are read as UTF-8).
func (t *Tokenizer) DecodeText(prev int, ids []int) string {
	var buf []byte
	for _, id := range ids {
		buf = append(buf, t.TextBytes(prev, id)...)
		prev = id
	}
	return decodeLossy(buf)
}

// TextBytes is what token id adds to running text after token prev. For
// byte-level BPE (Qwen, Llama 3) these are its TokenBytes. For
// SentencePiece vocabularies they follow llama.cpp's token_to_piece and
// llama2.c's decode: a control or unknown token (<s>, </s>, <unk>) prints
// nothing (llama.cpp's token_to_piece without special), and the piece right
// after BOS loses its leading space, the
// dummy prefix the encoder put there ("▁Once" after <s> is "Once"; after
// any other token " Once" keeps its space; a byte token <0x20> is a byte
// and keeps it, as in llama2.c).
func (t *Tokenizer) TextBytes(prev, id int) []byte {
	b := t.TokenBytes(id)
	if t.spm == nil {
		return b
	}
	switch {
	case t.IsSpecial(id):
		return nil
	case t.spm.spacePrefix && prev >= 0 && prev == t.bos && len(b) > 0 && b[0] == ' ' && !t.isByteToken(id):
		return b[1:]
	}
	return b
}

// isByteToken reports whether id is a SentencePiece byte token <0xXX>.
func (t *Tokenizer) isByteToken(id int) bool {
	b := t.TokenBytes(id)
	return t.spm != nil && len(b) == 1 && t.spm.byteTok[b[0]] == id
}

// decodeLossy converts b to a string, replacing each maximal subpart of an
// ill-formed sequence (Unicode §3.9) with one U+FFFD. Go's own conversions
// differ: strings.ToValidUTF8 merges whole invalid runs, and ranging over
// a string yields one U+FFFD per bad byte.
func decodeLossy(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for i := 0; i < len(b); {
		r, w := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || w > 1 {
			sb.Write(b[i : i+w])
			i += w
			continue
		}
		sb.WriteRune(utf8.RuneError)
		i += maximalSubpart(b[i:])
	}
	return sb.String()
}

// maximalSubpart returns the length (≥ 1) of the longest prefix of b that
// starts a well-formed UTF-8 sequence, for b not starting with one.
func maximalSubpart(b []byte) int {
	n, lo, hi := seqShape(b[0])
	if n < 2 {
		return 1
	}
	k := 1
	for k < n && k < len(b) {
		c := b[k]
		if k == 1 && (c < lo || c > hi) || k > 1 && (c < 0x80 || c > 0xBF) {
			break
		}
		k++
	}
	return k
}

// seqShape gives the length of the sequence lead byte c starts and the
// range allowed for its second byte (Unicode Table 3-7); n = 0 for a byte
// that cannot start a sequence.
func seqShape(c byte) (n int, lo, hi byte) {
	switch {
	case c < 0x80:
		return 1, 0, 0
	case c < 0xC2:
		return 0, 0, 0
	case c < 0xE0:
		return 2, 0x80, 0xBF
	case c == 0xE0:
		return 3, 0xA0, 0xBF
	case c == 0xED:
		return 3, 0x80, 0x9F
	case c < 0xF0:
		return 3, 0x80, 0xBF
	case c == 0xF0:
		return 4, 0x90, 0xBF
	case c < 0xF4:
		return 4, 0x80, 0xBF
	case c == 0xF4:
		return 4, 0x80, 0x8F
	}
	return 0, 0, 0
}

// Stream decodes ids one at a time for display during generation. A token
// may end inside a multi-byte character (CJK, emoji): those bytes wait
// until the character is complete, so the concatenation of everything
// Next and Flush return equals Decode of all the ids (a text stream:
// DecodeText). A Stream belongs to one generation and one goroutine.
type Stream struct {
	t       *Tokenizer
	pending []byte // an unfinished UTF-8 sequence, at most 3 bytes
	prev    int    // the token before the next one, -1 when none
	text    bool   // the rules of running text (TextBytes), not TokenBytes
}

// NewStream starts a streaming decoder.
func (t *Tokenizer) NewStream() *Stream { return &Stream{t: t, prev: -1} }

// NewTextStream starts a streaming decoder of generated text that follows
// token prev (the last prompt token; -1 when none): each token gives its
// TextBytes, so the concatenation equals DecodeText(prev, ids).
func (t *Tokenizer) NewTextStream(prev int) *Stream { return &Stream{t: t, prev: prev, text: true} }

// Next adds one token and returns the text it completes: "" while a UTF-8
// sequence is unfinished; bytes that can never become valid come out as
// U+FFFD at once.
func (s *Stream) Next(id int) string {
	if s.text {
		s.pending = append(s.pending, s.t.TextBytes(s.prev, id)...)
	} else {
		s.pending = append(s.pending, s.t.TokenBytes(id)...)
	}
	s.prev = id
	cut := incompleteTail(s.pending)
	out := decodeLossy(s.pending[:cut])
	s.pending = append(s.pending[:0], s.pending[cut:]...)
	return out
}

// Flush returns whatever is pending, an unfinished sequence becoming
// U+FFFD, and resets the stream.
func (s *Stream) Flush() string {
	out := decodeLossy(s.pending)
	s.pending = s.pending[:0]
	return out
}

// incompleteTail returns where a possibly valid but unfinished UTF-8
// sequence at the end of b starts (len(b) if there is none). Only a lead
// byte among the last three can start one; every byte after it is then a
// valid continuation, or utf8.FullRune would report the error as complete.
func incompleteTail(b []byte) int {
	for i := max(0, len(b)-3); i < len(b); i++ {
		if n, _, _ := seqShape(b[i]); n >= 2 && !utf8.FullRune(b[i:]) {
			return i
		}
	}
	return len(b)
}
