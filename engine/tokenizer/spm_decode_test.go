package tokenizer

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// refSPMText is the text a reference prints for ids generated after token
// prev, written as Hugging Face's Llama decoder runs (tokenizer.json
// "decoder": Replace ▁ → space, ByteFallback, Fuse, Strip one leading
// space) on decode(skip_special_tokens=true), which llama.cpp's detokenize
// matches: control and unknown tokens dropped, <0xXX> pieces turned into
// their byte, all joined, and the first space removed when the text starts
// the sequence (prev is BOS or nothing).
func refSPMText(v Vocab, prev int, ids []int) string {
	var out []byte
	for _, id := range ids {
		piece := v.Tokens[id]
		switch v.Types[id] {
		case typeControl, typeUnknown:
			piece = ""
		case typeByte:
			var b byte
			if _, err := fmt.Sscanf(piece, "<0x%02X>", &b); err == nil {
				piece = string([]byte{b})
			}
		default:
			piece = strings.ReplaceAll(piece, "▁", " ")
		}
		out = append(out, piece...)
	}
	if prev < 0 || prev == v.BOS {
		out = bytes.TrimPrefix(out, []byte(" "))
	}
	return string(out)
}

// storyVocab is spmTestVocab with a few words of a story.
func storyVocab() Vocab {
	v := spmTestVocab()
	for i, p := range []string{"▁Once", "▁upon", "▁a", "▁time", "▁there", ",", "▁was", "你", "▁你好"} {
		v.Tokens, v.Types, v.Scores = append(v.Tokens, p), append(v.Types, typeNormal), append(v.Scores, -100-float32(i))
	}
	return v
}

// TestSPMDecodeText: generated text as llama2.c and llama.cpp print it —
// the dummy-prefix space dropped after BOS only, byte tokens assembled
// into UTF-8 across tokens, control tokens silent — by DecodeText and by a
// text Stream fed one token at a time.
func TestSPMDecodeText(t *testing.T) {
	v := storyVocab()
	tok, err := FromVocab(v)
	if err != nil {
		t.Fatal(err)
	}
	id := func(s string) int {
		i, ok := tok.TokenID(s)
		if !ok {
			t.Fatalf("no token %q", s)
		}
		return i
	}
	byteTok := func(b byte) int { return id(fmt.Sprintf("<0x%02X>", b)) }
	bos, eos := 1, 2
	for _, tc := range []struct {
		prev int
		ids  []int
		want string
	}{
		{bos, []int{id("▁Once"), id("▁upon"), id("▁a"), id("▁time")}, "Once upon a time"}, // --prompt "": after BOS alone
		{id("▁time"), []int{id(","), id("▁there"), id("▁was")}, ", there was"},            // a continuation keeps its spaces
		{id("▁time"), []int{id("▁there")}, " there"},
		{bos, []int{byteTok(0xE4), byteTok(0xBD), byteTok(0xA0), byteTok(0x0A)}, "你\n"}, // byte fallback, one character over three tokens
		{bos, []int{byteTok(' '), id("▁a")}, " a"},                                      // the text's first space goes, whatever token it came from
		{id("▁a"), []int{id("▁was"), eos, bos, id("▁Once")}, " was Once"},               // </s> and <s> print nothing; a later BOS strips nothing
		{-1, []int{id("▁你好"), id("你")}, "你好你"},                                          // the start of a sequence
		{bos, []int{0, id("▁a")}, "a"},                                                  // <unk> prints nothing
	} {
		if got := tok.DecodeText(tc.prev, tc.ids); got != tc.want {
			t.Errorf("DecodeText(%d, %v) = %q, want %q", tc.prev, tc.ids, got, tc.want)
		}
		if ref := refSPMText(v, tc.prev, tc.ids); ref != tc.want {
			t.Errorf("reference of %v = %q, want %q", tc.ids, ref, tc.want)
		}
		if got := streamText(tok, tc.prev, tc.ids); got != tc.want {
			t.Errorf("stream of %v = %q, want %q", tc.ids, got, tc.want)
		}
	}
}

// streamText decodes ids one at a time through a text Stream.
func streamText(tok *Tokenizer, prev int, ids []int) string {
	var sb strings.Builder
	s := tok.NewTextStream(prev)
	for _, id := range ids {
		sb.WriteString(s.Next(id))
	}
	sb.WriteString(s.Flush())
	return sb.String()
}

// TestSPMDecodeTextRandom: random texts are encoded (BOS first) and the
// ids printed back: the reference's text, the stream's and the original
// agree (encode and decode round trip, as SentencePiece's do).
func TestSPMDecodeTextRandom(t *testing.T) {
	v := storyVocab()
	tok, err := FromVocab(v)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	words := []string{"Once", "upon", "a", "time", "there", "was", ",", "你好", "你", "ü", "x", "hello", "\n", "é"}
	for range 1000 {
		var b strings.Builder
		for n := r.IntN(8); n > 0; n-- {
			if b.Len() > 0 && r.IntN(3) > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[r.IntN(len(words))])
		}
		s := b.String()
		ids := tok.Encode(s)
		if ids[0] != 1 {
			t.Fatalf("Encode(%q) = %v: no BOS", s, ids)
		}
		want := refSPMText(v, 1, ids[1:])
		if got := tok.DecodeText(1, ids[1:]); got != want || got != s {
			t.Fatalf("%q: DecodeText %q, reference %q", s, got, want)
		}
		if got := streamText(tok, 1, ids[1:]); got != want {
			t.Fatalf("%q: stream %q, reference %q", s, got, want)
		}
		// split anywhere but inside a character: the continuation after
		// the first k ids
		k := 1 + r.IntN(len(ids))
		if got, ref := tok.DecodeText(ids[k-1], ids[k:]), refSPMText(v, ids[k-1], ids[k:]); got != ref && utf8.ValidString(ref) {
			t.Fatalf("%q after %d ids: %q, reference %q", s, k, got, ref)
		}
	}
}

// TestSPMBytesWithoutTypes: a vocabulary without token types (all normal)
// still reads <0xXX> pieces as its byte tokens.
func TestSPMBytesWithoutTypes(t *testing.T) {
	v := storyVocab()
	v.Types = nil
	tok, err := FromVocab(v)
	if err != nil {
		t.Fatal(err)
	}
	ids := tok.Encode("ü")
	if got := tok.DecodeText(-1, ids[1:]); got != "ü" || len(ids) != 4 {
		t.Fatalf("ids %v text %q", ids, got)
	}
}
