package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// QwenPattern is the pre-tokenizer regex of Qwen2, Qwen2.5 and Qwen3
// (docs/spec/tokenizer.md §3.2). Go's regexp cannot run it (no look-ahead, ASCII
// \s), so splitPieces is a hand-written matcher with the same semantics.
const QwenPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// Qwen35Pattern is Qwen3.5's pre-tokenizer regex (docs/spec/qwen35.md §8, from
// llama.cpp's LLAMA_VOCAB_PRE_TYPE_QWEN35): QwenPattern with combining
// marks \p{M} joining letters in words and leaving the punctuation class.
const Qwen35Pattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// Character classes of the pattern, precomputed for ASCII.
const (
	clsL    = 1 << iota // \p{L}: general category L*
	clsN                // \p{N}: Nd, Nl, No
	clsS                // \s: Unicode White_Space
	clsCRLF             // [\r\n]
	clsM                // \p{M}: a letter in Qwen35Pattern's words; "other" in QwenPattern
)

var asciiClass [128]uint8

func init() {
	for c := 0; c < 128; c++ {
		asciiClass[c] = classOfRune(rune(c))
	}
}

func classOfRune(r rune) uint8 {
	var c uint8
	switch {
	case unicode.IsLetter(r):
		c = clsL
	case unicode.IsNumber(r):
		c = clsN
	case unicode.IsMark(r):
		c = clsM
	case unicode.IsSpace(r): // TAB…CR, space, U+0085, U+00A0, Zs, Zl, Zp = White_Space
		c = clsS
		if r == '\r' || r == '\n' {
			c |= clsCRLF
		}
	}
	return c
}

// runeAt decodes the character at s[i] and its class. Invalid UTF-8 (which
// Encode never passes, since NFC output of a Go string may hold it) counts
// as one byte of class "other".
func runeAt(s string, i int) (rune, int, uint8) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1, asciiClass[c]
	}
	r, w := utf8.DecodeRuneInString(s[i:])
	return r, w, classOfRune(r)
}

// splitter runs one of the two patterns: with marks (Qwen35Pattern) a
// combining mark counts as a letter, without (QwenPattern) as "other".
// digits > 1 lets a number run that long (Llama3Pattern's \p{N}{1,3}).
type splitter struct {
	marks  bool
	digits int
	kind   uint8 // kindQwen, or a GPT-2 family pattern (pretok_gpt2.go)
}

// Llama3Pattern is Llama 3's pre-tokenizer regex (docs/spec/llama.md §4): Qwen's
// with up to three number characters per piece.
const Llama3Pattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// class is runeAt's class under the splitter's pattern.
func (sp splitter) runeAt(s string, i int) (rune, int, uint8) {
	r, w, c := runeAt(s, i)
	if c == clsM {
		if sp.marks {
			c = clsL
		} else {
			c = 0
		}
	}
	return r, w, c
}

// splitPieces calls emit with each pre-token of s: the successive
// leftmost matches of QwenPattern. The alternatives cover every
// character, so the pieces concatenate to s.
func splitPieces(s string, emit func(piece string)) { splitter{}.split(s, emit) }

// split is splitPieces under the splitter's pattern.
func (sp splitter) split(s string, emit func(piece string)) {
	switch sp.kind {
	case kindGPT2:
		splitGPT2(s, emit)
		return
	case kindSmolLM:
		splitSmolLMText(s, emit)
		return
	case kindDefault:
		splitDefaultText(s, emit)
		return
	}
	for i := 0; i < len(s); {
		end := sp.matchAt(s, i)
		emit(s[i:end])
		i = end
	}
}

// matchAt returns the end of the match of the pattern starting at s[i],
// trying the alternatives in order like a backtracking engine. In
// Qwen35Pattern a mark may also be the optional character before a word,
// which gives the same pieces as counting it in the word.
func (sp splitter) matchAt(s string, i int) int {
	r, w, c := sp.runeAt(s, i)
	if r == '\'' {
		if end := matchContraction(s, i+w); end > 0 {
			return end
		}
	}
	if end := sp.matchWord(s, i, w, c); end > 0 {
		return end
	}
	if c&clsN != 0 { // \p{N}: one number character, or up to digits of them
		end := i + w
		for n := 1; n < sp.digits && end < len(s); n++ {
			_, w2, c2 := sp.runeAt(s, end)
			if c2&clsN == 0 {
				break
			}
			end += w2
		}
		return end
	}
	if end := sp.matchPunct(s, i, r, c); end > 0 {
		return end
	}
	return matchSpace(s, i)
}

// contractions are the suffixes of (?i:'s|'t|'re|'ve|'m|'ll|'d).
var contractions = [...]string{"s", "t", "re", "ve", "m", "ll", "d"}

// matchContraction matches a case-insensitive contraction suffix at s[j]
// (just after the apostrophe); it returns the end or 0.
func matchContraction(s string, j int) int {
	for _, suf := range contractions {
		k := j
		ok := true
		for n := 0; n < len(suf); n++ {
			if k >= len(s) {
				ok = false
				break
			}
			r, w := utf8.DecodeRuneInString(s[k:])
			if !foldEqual(r, rune(suf[n])) {
				ok = false
				break
			}
			k += w
		}
		if ok {
			return k
		}
	}
	return 0
}

// foldEqual reports whether r equals the ASCII lower-case letter l under
// Unicode simple case folding, as (?i) does: 'S' and 'ſ' (U+017F) match 's'.
func foldEqual(r, l rune) bool {
	if r == l {
		return true
	}
	for f := unicode.SimpleFold(l); f != l; f = unicode.SimpleFold(f) {
		if f == r {
			return true
		}
	}
	return false
}

// matchWord matches [^\r\n\p{L}\p{N}]?\p{L}+ at s[i] (first character of
// width w, class c); it returns the end or 0.
func (sp splitter) matchWord(s string, i, w int, c uint8) int {
	j := i
	if c&clsL == 0 {
		if c&(clsN|clsCRLF) != 0 || i+w >= len(s) {
			return 0
		}
		j = i + w // the optional prefix character
	}
	end := sp.letterRun(s, j)
	if end == j {
		return 0
	}
	return end
}

// letterRun returns the end of the run of \p{L} starting at s[j].
func (sp splitter) letterRun(s string, j int) int {
	for j < len(s) {
		_, w, c := sp.runeAt(s, j)
		if c&clsL == 0 {
			break
		}
		j += w
	}
	return j
}

// matchPunct matches " ?[^\s\p{L}\p{N}]+[\r\n]*" at s[i]; it returns the
// end or 0.
func (sp splitter) matchPunct(s string, i int, r rune, c uint8) int {
	j := i
	if r == ' ' {
		j = i + 1 // when no symbol follows, the backtrack to j=i fails too: ' ' is \s
	} else if c != 0 {
		return 0
	}
	k := j
	for k < len(s) {
		_, w, ck := sp.runeAt(s, k)
		if ck != 0 {
			break
		}
		k += w
	}
	if k == j {
		return 0
	}
	for k < len(s) && (s[k] == '\r' || s[k] == '\n') {
		k++
	}
	return k
}

// matchSpace handles a whitespace character at s[i] with the last three
// alternatives:
//
//	\s*[\r\n]+  the run up to and including its last CR or LF
//	\s+(?!\S)   the run, less its last character when a non-space follows
//	\s+         the run (a single space before a non-space)
func matchSpace(s string, i int) int {
	end, lastNL, lastStart, n := i, -1, i, 0
	for end < len(s) {
		_, w, c := runeAt(s, end)
		if c&clsS == 0 {
			break
		}
		if c&clsCRLF != 0 {
			lastNL = end + w
		}
		lastStart = end
		end += w
		n++
	}
	switch {
	case lastNL > 0:
		return lastNL
	case end == len(s) || n < 2:
		return end
	default:
		return lastStart
	}
}
