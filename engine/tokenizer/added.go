package tokenizer

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// addedToken is one entry of tokenizer.json "added_tokens".
type addedToken struct {
	ID         int    `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

// addedMatcher finds added tokens in text with leftmost-longest semantics
// (HF builds an Aho-Corasick automaton with MatchKind::LeftmostLongest):
// the earliest match wins, and among those starting there, the longest.
// Qwen has a couple of dozen added tokens, so candidates are looked up by
// first byte instead of through an automaton.
type addedMatcher struct {
	first [256][]addedToken // by first byte of content, longest first
}

func newAddedMatcher(tokens []addedToken) addedMatcher {
	var m addedMatcher
	for _, tok := range tokens {
		if tok.Content == "" {
			continue
		}
		b := tok.Content[0]
		m.first[b] = append(m.first[b], tok)
	}
	for b := range m.first {
		sort.SliceStable(m.first[b], func(i, j int) bool {
			return len(m.first[b][i].Content) > len(m.first[b][j].Content)
		})
	}
	return m
}

// split cuts text into ordinary segments (emitted with id -1) and added
// tokens (emitted with their id), in order. Empty segments are skipped.
func (m *addedMatcher) split(text string, emit func(seg string, id int)) {
	done := 0 // text[:done] has been emitted
	for i := 0; i < len(text); i++ {
		cands := m.first[text[i]]
		if cands == nil {
			continue
		}
		tok, ok := longestAt(text, i, cands)
		if !ok || !singleWordOK(text, i, tok) {
			continue
		}
		start, end := i, i+len(tok.Content)
		if tok.LStrip {
			start = done + len(strings.TrimRightFunc(text[done:start], unicode.IsSpace))
		}
		if tok.RStrip {
			end = len(text) - len(strings.TrimLeftFunc(text[end:], unicode.IsSpace))
		}
		if start > done {
			emit(text[done:start], -1)
		}
		emit(text[start:end], tok.ID)
		done = end
		i = end - 1
	}
	if done < len(text) {
		emit(text[done:], -1)
	}
}

// longestAt returns the longest candidate whose content starts at text[i].
func longestAt(text string, i int, cands []addedToken) (addedToken, bool) {
	for _, tok := range cands {
		if strings.HasPrefix(text[i:], tok.Content) {
			return tok, true
		}
	}
	return addedToken{}, false
}

// singleWordOK vetoes a single_word token glued to a word character.
func singleWordOK(text string, i int, tok addedToken) bool {
	if !tok.SingleWord {
		return true
	}
	if r, _ := utf8.DecodeLastRuneInString(text[:i]); i > 0 && isWordChar(r) {
		return false
	}
	end := i + len(tok.Content)
	r, _ := utf8.DecodeRuneInString(text[end:])
	return end == len(text) || !isWordChar(r)
}

func isWordChar(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}
