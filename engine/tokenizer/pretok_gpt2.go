package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// GPT-2's pre-tokenizer and the llama.cpp pre-tokenizers built on it
// (llama-vocab.cpp, llm_tokenizer_bpe), hand-written like splitter.matchAt:
//
//	gpt2    GPT2Pattern (HF ByteLevel with use_regex, llama.cpp "gpt-2")
//	smollm  \p{N} isolated, then GPT2Pattern (HF Digits(individual) +
//	        ByteLevel; llama.cpp "smollm", "starcoder", "refact", …)
//	default [\p{P}\$\+<=>\^~\|]+, then GPT2Pattern, then \p{N}+, then
//	        [0-9][0-9][0-9], each split applied to every piece of the one
//	        before (llama.cpp's fallback when tokenizer.ggml.pre is
//	        "default" or absent)
//
// Every split is "isolated": the text between matches is a piece too, so
// the pieces always concatenate to the input.

// GPT2Pattern is GPT-2's pre-tokenizer regex (HF ByteLevel use_regex).
// Its contractions are case-sensitive, its letters take no leading
// character but a space, and combining marks are "other".
const GPT2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

const (
	kindQwen    = iota // QwenPattern and its variants (splitter.matchAt)
	kindGPT2           // GPT2Pattern
	kindSmolLM         // \p{N}, then GPT2Pattern
	kindDefault        // llama.cpp's default sequence
)

// gpt2Class is runeAt's class with marks counted as "other".
func gpt2Class(s string, i int) (rune, int, uint8) {
	r, w, c := runeAt(s, i)
	if c == clsM {
		c = 0
	}
	return r, w, c
}

// splitGPT2 calls emit with the successive matches of GPT2Pattern in s.
func splitGPT2(s string, emit func(string)) {
	for i := 0; i < len(s); {
		end := matchGPT2(s, i)
		emit(s[i:end])
		i = end
	}
}

// matchGPT2 returns the end of the match of GPT2Pattern at s[i].
func matchGPT2(s string, i int) int {
	if s[i] == '\'' {
		if end := matchContractionExact(s, i+1); end > 0 {
			return end
		}
	}
	j := i
	if s[i] == ' ' && i+1 < len(s) {
		j = i + 1
	}
	_, w, c := gpt2Class(s, j)
	if c&clsS == 0 { // a run of one class: letters, numbers or "other"
		end := j + w
		for end < len(s) {
			_, w2, c2 := gpt2Class(s, end)
			if c2 != c {
				break
			}
			end += w2
		}
		return end
	}
	return matchSpaceRun(s, i)
}

// gpt2Contractions are 's 't 're 've 'm 'll 'd, lower case only.
var gpt2Contractions = [...]string{"s", "t", "re", "ve", "m", "ll", "d"}

// matchContractionExact matches a contraction suffix at s[j] (just after
// the apostrophe); it returns the end or 0.
func matchContractionExact(s string, j int) int {
	for _, suf := range gpt2Contractions {
		if len(s)-j >= len(suf) && s[j:j+len(suf)] == suf {
			return j + len(suf)
		}
	}
	return 0
}

// matchSpaceRun is \s+(?!\S)|\s+ at a whitespace character s[i]: the run,
// less its last character when a non-space follows a run of two or more.
func matchSpaceRun(s string, i int) int {
	end, lastStart, n := i, i, 0
	for end < len(s) {
		_, w, c := runeAt(s, end)
		if c&clsS == 0 {
			break
		}
		lastStart = end
		end += w
		n++
	}
	if end == len(s) || n < 2 {
		return end
	}
	return lastStart
}

// isolate cuts s into maximal runs of characters that satisfy in and the
// runs between them, and passes each to next.
func isolate(s string, in func(r rune) bool, next func(string)) {
	start, state := 0, false
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if b := in(r); b != state && i > start {
			next(s[start:i])
			start = i
			state = b
		} else {
			state = b
		}
		i += w
	}
	if start < len(s) {
		next(s[start:])
	}
}

// isolateEach cuts every character that satisfies in out on its own.
func isolateEach(s string, in func(r rune) bool, next func(string)) {
	start := 0
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if in(r) {
			if i > start {
				next(s[start:i])
			}
			next(s[i : i+w])
			start = i + w
		}
		i += w
	}
	if start < len(s) {
		next(s[start:])
	}
}

// threes cuts each run of ASCII digits into groups of three from its left
// ([0-9][0-9][0-9]: "12345" gives "123" and "45").
func threes(s string, next func(string)) {
	start := 0
	for i := 0; i < len(s); {
		if !isASCIIDigit(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isASCIIDigit(s[j]) {
			j++
		}
		for ; j-i >= 3; i += 3 {
			if i > start {
				next(s[start:i])
			}
			next(s[i : i+3])
			start = i + 3
		}
		i = j
	}
	if start < len(s) {
		next(s[start:])
	}
}

func isASCIIDigit(c byte) bool { return c >= '0' && c <= '9' }

// isDefaultPunct is [\p{P}\$\+<=>\^~\|].
func isDefaultPunct(r rune) bool {
	switch r {
	case '$', '+', '<', '=', '>', '^', '~', '|':
		return true
	}
	return unicode.IsPunct(r)
}

// splitSmolLMText is \p{N} isolated, then GPT2Pattern on the rest.
func splitSmolLMText(s string, emit func(string)) {
	isolateEach(s, unicode.IsNumber, func(p string) { splitGPT2(p, emit) })
}

// splitDefaultText is llama.cpp's default sequence of four splits.
func splitDefaultText(s string, emit func(string)) {
	isolate(s, isDefaultPunct, func(p string) {
		splitGPT2(p, func(q string) {
			isolate(q, unicode.IsNumber, func(n string) { threes(n, emit) })
		})
	})
}
