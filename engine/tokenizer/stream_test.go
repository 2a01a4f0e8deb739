package tokenizer

import (
	"reflect"
	"strings"
	"testing"
)

// streamAll decodes ids through a Stream, one at a time.
func streamAll(tok *Tokenizer, ids []int) string {
	var sb strings.Builder
	s := tok.NewStream()
	for _, id := range ids {
		sb.WriteString(s.Next(id))
	}
	sb.WriteString(s.Flush())
	return sb.String()
}

// TestDecodeLossy: each maximal invalid subpart becomes one U+FFFD, as
// Python's bytes.decode("utf-8", "replace") gives for the same bytes.
func TestDecodeLossy(t *testing.T) {
	cases := []struct{ in, want string }{
		{"\xe4\xbd", "\ufffd"},
		{"\xf0\x9f\x98", "\ufffd"},
		{"\xe0\x80\x80", "\ufffd\ufffd\ufffd"},
		{"\xed\xa0\x80", "\ufffd\ufffd\ufffd"},
		{"\xf4\x90\x80\x80", "\ufffd\ufffd\ufffd\ufffd"},
		{"\xc0\xaf", "\ufffd\ufffd"},
		{"a\xffb", "a\ufffdb"},
		{"\xe4\xbdA", "\ufffdA"},
		{"\xf0\x9f\x98A", "\ufffdA"},
		{"\xf0\x9f\xe4\xbd\xa0", "\ufffd你"},
		{"\x80\x80", "\ufffd\ufffd"},
		{"\xf5\x80", "\ufffd\ufffd"},
		{"ok é 😀", "ok é 😀"},
	}
	for _, c := range cases {
		if got := decodeLossy([]byte(c.in)); got != c.want {
			t.Errorf("decodeLossy(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// byteIDs returns the one-byte token of each byte of s.
func byteIDs(tok *Tokenizer, s string) []int {
	ids := make([]int, len(s))
	for i := range len(s) {
		ids[i] = int(tok.byteID[s[i]])
	}
	return ids
}

// TestStreamSplitCharacters feeds multi-byte characters one byte-token at
// a time: nothing comes out until the character is complete.
func TestStreamSplitCharacters(t *testing.T) {
	tok := qwen25(t)
	for _, ch := range []string{"é", "你", "😀", "€", "\U0010FFFD"} {
		s := tok.NewStream()
		ids := byteIDs(tok, ch)
		for i, id := range ids {
			got := s.Next(id)
			want := ""
			if i == len(ids)-1 {
				want = ch
			}
			if got != want {
				t.Errorf("%q byte %d: Next = %q, want %q", ch, i, got, want)
			}
		}
		if rest := s.Flush(); rest != "" {
			t.Errorf("%q: Flush = %q after a complete character", ch, rest)
		}
	}
}

// TestStreamReferenceSplit: " 🍕" is three tokens in the reference
// encoding of "I love pizza 🍕 and" (tokenizer-cases.jsonl), the first
// being the space and the emoji's lead byte: the space comes out at once,
// the emoji whole with the third.
func TestStreamReferenceSplit(t *testing.T) {
	tok := qwen25(t)
	s := tok.NewStream()
	var got []string
	for _, id := range []int{40, 2948, 22502, 11162, 235, 243, 323} {
		got = append(got, s.Next(id))
	}
	want := []string{"I", " love", " pizza", " ", "", "🍕", " and"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("stream = %q, want %q", got, want)
	}
}

// TestStreamInvalid: a byte that can never start a character comes out as
// U+FFFD at once; an unfinished one at the end comes out of Flush.
func TestStreamInvalid(t *testing.T) {
	tok := qwen25(t)
	s := tok.NewStream()
	if got := s.Next(byteIDs(tok, "\x80")[0]); got != "\ufffd" {
		t.Errorf("lone continuation: %q", got)
	}
	if got := s.Next(byteIDs(tok, "\xe4")[0]); got != "" {
		t.Errorf("lead byte: %q", got)
	}
	if got := s.Next(byteIDs(tok, "A")[0]); got != "\ufffdA" {
		t.Errorf("broken sequence: %q", got)
	}
	s.Next(byteIDs(tok, "\xf0")[0])
	s.Next(byteIDs(tok, "\x9f")[0])
	if got := s.Flush(); got != "\ufffd" {
		t.Errorf("Flush of a cut emoji = %q", got)
	}
	if got := s.Flush(); got != "" {
		t.Errorf("second Flush = %q", got)
	}
}
