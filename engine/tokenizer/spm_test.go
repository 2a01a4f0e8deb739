package tokenizer

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// spmTestVocab is a small SentencePiece vocabulary in GGUF form: <unk>,
// <s>, </s>, the 256 byte tokens, then pieces with scores (higher merges
// first).
func spmTestVocab() Vocab {
	v := Vocab{Model: "llama", BOS: 1, UNK: 0, AddBOS: true, AddSpacePrefix: true}
	add := func(s string, typ int32, score float32) {
		v.Tokens, v.Types, v.Scores = append(v.Tokens, s), append(v.Types, typ), append(v.Scores, score)
	}
	add("<unk>", typeUnknown, 0)
	add("<s>", typeControl, 0)
	add("</s>", typeControl, 0)
	for b := range 256 {
		add(fmt.Sprintf("<0x%02X>", b), typeByte, 0)
	}
	for i, p := range []string{"▁", "a", "b", "c", "l", "o", "h", "e", "▁h", "he", "ll", "lo", "hell", "▁hell",
		"▁hello", "ello", "ab", "bc", "abc", "▁a", "▁ab", "é"} {
		add(p, typeNormal, -float32(i))
	}
	return v
}

func TestSPMEncode(t *testing.T) {
	tok, err := FromVocab(spmTestVocab())
	if err != nil {
		t.Fatal(err)
	}
	id := func(s string) int { i, _ := tok.TokenID(s); return i }
	for _, tc := range []struct {
		in   string
		want []int
	}{
		// nil: the naive reference's ids (below); the others by hand
		{"", []int{1}},
		// ▁+h (score −8) beats h+e (−9), then l+l; "▁he", "ell", "llo" are no
		// tokens, so merging stops short of ▁hello
		{"hello", []int{1, id("▁h"), id("e"), id("ll"), id("o")}},
		{"ab c", []int{1, id("▁ab"), id("▁"), id("c")}}, // ▁a (−19) then ▁a+b; ▁c is no token
		{"abc", nil},
		{"a b", nil},
		{"x", []int{1, id("▁"), 3 + 'x'}},            // byte fallback for an uncovered character
		{"é", []int{1, id("▁"), id("é")}},            // a covered two-byte character stays one token
		{"ü", []int{1, id("▁"), 3 + 0xC3, 3 + 0xBC}}, // not covered: its two bytes
		{"<s>a", []int{1, 1, id("▁a")}},              // a special token, then a space prefix again
	} {
		got := tok.Encode(tc.in)
		want := tc.want
		if want == nil {
			want = naiveSPM(tok, tc.in)
		}
		if !slices.Equal(got, want) {
			t.Errorf("Encode(%q) = %v, want %v", tc.in, got, want)
		}
	}
	if got := tok.Decode(tok.Encode("hello abc x")); got != "<s> hello abc x" {
		t.Errorf("decode %q", got)
	}
	if id, add := tok.BOS(); id != 1 || !add {
		t.Errorf("BOS %d %v", id, add)
	}
}

// naiveSPM is llama.cpp's llm_tokenizer_spm written the slow, obvious
// way: a list of symbol strings; repeatedly merge the adjacent pair whose
// concatenation is the token of highest score (leftmost on ties); then
// each symbol is its token or its bytes. Special tokens are not split
// out (the inputs given have none).
func naiveSPM(tok *Tokenizer, text string) []int {
	out := []int{tok.bos}
	if text == "" {
		return out
	}
	s := strings.ReplaceAll(" "+text, " ", "▁")
	var syms []string
	for _, r := range s {
		syms = append(syms, string(r))
	}
	for {
		best, bestScore := -1, float32(0)
		for i := 0; i+1 < len(syms); i++ {
			if id, ok := tok.vocab[syms[i]+syms[i+1]]; ok {
				if sc := tok.spm.scores[id]; best < 0 || sc > bestScore {
					best, bestScore = i, sc
				}
			}
		}
		if best < 0 {
			break
		}
		syms = append(syms[:best], append([]string{syms[best] + syms[best+1]}, syms[best+2:]...)...)
	}
	for _, sym := range syms {
		if id, ok := tok.vocab[sym]; ok {
			out = append(out, id)
			continue
		}
		for i := 0; i < len(sym); i++ {
			out = append(out, tok.spm.byteTok[sym[i]])
		}
	}
	return out
}

// TestSPMMatchesNaive: random strings over the vocabulary's alphabet, a
// space, and uncovered characters.
func TestSPMMatchesNaive(t *testing.T) {
	tok, err := FromVocab(spmTestVocab())
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []rune("abcehlo  xéü")
	for range 2000 {
		n := r.IntN(12)
		var b strings.Builder
		for range n {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		s := b.String()
		if got, want := tok.Encode(s), naiveSPM(tok, s); !slices.Equal(got, want) {
			t.Fatalf("Encode(%q) = %v, naive %v", s, got, want)
		}
		if got := tok.Decode(tok.Encode(s)[1:]); s != "" && (got != " "+s || !utf8.ValidString(got)) {
			t.Fatalf("round trip of %q gave %q", s, got)
		}
	}
}

// A vocabulary without scores, or with mismatched lengths, is refused.
func TestFromVocabRefusals(t *testing.T) {
	for name, edit := range map[string]func(*Vocab){
		"no scores":     func(v *Vocab) { v.Scores = nil },
		"types length":  func(v *Vocab) { v.Types = v.Types[1:] },
		"bos range":     func(v *Vocab) { v.BOS = len(v.Tokens) },
		"type 9":        func(v *Vocab) { v.Types[5] = 9 },
		"unknown model": func(v *Vocab) { v.Model = "bert" },
	} {
		v := spmTestVocab()
		edit(&v)
		if _, err := FromVocab(v); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
