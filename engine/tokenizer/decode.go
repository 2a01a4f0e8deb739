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
// the way a reference prints a generation: the bytes of every token
// joined before they are read as UTF-8, so byte tokens of one character
// assemble across tokens. For byte-level BPE (Qwen, Llama 3) these are the
// TokenBytes of every id. For SentencePiece vocabularies they follow
// llama.cpp's token_to_piece and detokenize and Hugging Face's decoder
// (Replace ▁, ByteFallback, Fuse, Strip): control and unknown tokens
// (<s>, </s>, <unk>) print nothing, and the text that starts right after
// BOS loses its first space, the dummy prefix the encoder put there
// ("▁Once" after <s> is "Once"; a continuation after any other token
// keeps its " there", and so does a piece after a BOS generated later).
func (t *Tokenizer) DecodeText(prev int, ids []int) string {
	var buf []byte
	start := t.textStart(prev)
	for _, id := range ids {
		buf = t.appendTextBytes(buf, id, &start)
	}
	return decodeLossy(buf)
}

// textStart reports whether text after token prev starts a text whose
// first space is the dummy prefix.
func (t *Tokenizer) textStart(prev int) bool {
	return t.spm != nil && t.spm.stripFirst && (prev < 0 || prev == t.bos)
}

// appendTextBytes appends what id adds to running text; *start is true until
// the text has its first byte.
func (t *Tokenizer) appendTextBytes(buf []byte, id int, start *bool) []byte {
	b := t.TokenBytes(id)
	if t.spm == nil {
		return append(buf, b...)
	}
	if t.IsSpecial(id) {
		return buf
	}
	if *start && len(b) > 0 {
		*start = false
		if b[0] == ' ' {
			b = b[1:]
		}
	}
	return append(buf, b...)
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
	text    bool   // the rules of running text (DecodeText), not TokenBytes
	start   bool   // text: no byte yet after BOS
}

// NewStream starts a streaming decoder.
func (t *Tokenizer) NewStream() *Stream { return &Stream{t: t} }

// NewTextStream starts a streaming decoder of generated text that follows
// token prev (the last prompt token; -1 when none): the concatenation of
// what it returns equals DecodeText(prev, ids).
func (t *Tokenizer) NewTextStream(prev int) *Stream {
	return &Stream{t: t, text: true, start: t.textStart(prev)}
}

// Next adds one token and returns the text it completes: "" while a UTF-8
// sequence is unfinished; bytes that can never become valid come out as
// U+FFFD at once.
func (s *Stream) Next(id int) string {
	if s.text {
		s.pending = s.t.appendTextBytes(s.pending, id, &s.start)
	} else {
		s.pending = append(s.pending, s.t.TokenBytes(id)...)
	}
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
