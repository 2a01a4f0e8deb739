package tokenizer

import (
	"math/rand/v2"
	"testing"
)

// bpeSlow is the slow tokenizer's loop (transformers' Qwen2Tokenizer.bpe,
// GPT-2 style), the readable reference for the heap version: find the
// lowest-ranked adjacent pair, merge all its non-overlapping occurrences
// left to right, repeat. It works on strings of the byte-level alphabet.
func bpeSlow(tok *Tokenizer, raw string) []int {
	var word []string
	for i := 0; i < len(raw); i++ {
		word = append(word, string(byteToRune[raw[i]]))
	}
	for len(word) > 1 {
		best, bestRank := -1, int32(1<<31-1)
		for i := 0; i+1 < len(word); i++ {
			if m, ok := tok.merges[pairKey(int32(tok.vocab[word[i]]), int32(tok.vocab[word[i+1]]))]; ok && m.rank < bestRank {
				best, bestRank = i, m.rank
			}
		}
		if best < 0 {
			break
		}
		a, b := word[best], word[best+1]
		var next []string
		for i := 0; i < len(word); i++ {
			if i+1 < len(word) && word[i] == a && word[i+1] == b {
				next = append(next, a+b)
				i++
			} else {
				next = append(next, word[i])
			}
		}
		word = next
	}
	ids := make([]int, len(word))
	for i, w := range word {
		ids[i] = tok.vocab[w]
	}
	return ids
}

// TestBPEMatchesSlowLoop compares bpe (linear for short pieces, heap for
// long ones) with bpeSlow on real words,
// repetitive runs (where overlapping pairs and ties matter) and random
// bytes.
func TestBPEMatchesSlowLoop(t *testing.T) {
	tok := qwen25(t)
	words := []string{"hello", " world", "aaaaaaa", " aaaaaaaaaaaaaaaaaaa", "=========", "          ",
		"\n\n\n\n\n", "antidisestablishmentarianism", " Supercalifragilisticexpialidocious", "ababababab",
		"你好世界你好世界", "😀😀😀", "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := "abcdefghij eE .\n!你"
	for range 300 {
		b := make([]byte, 1+r.IntN(80)) // both sides of smallPiece
		for i := range b {
			if r.IntN(4) == 0 {
				b[i] = byte(r.IntN(256))
			} else {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
		}
		words = append(words, string(b))
	}
	for _, w := range words {
		got, want := tok.bpe(nil, w), bpeSlow(tok, w)
		if !equalIDs(got, want) {
			t.Errorf("bpe(%q) = %v, slow loop %v", w, got, want)
		}
	}
}
