package tokenizer

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// TestRoundTripTexts: Decode(Encode(s)) == NFC(s) for every text shipped
// in testdata/texts, and the stream gives the same text.
func TestRoundTripTexts(t *testing.T) {
	tok := qwen25(t)
	paths, _ := filepath.Glob(filepath.Join(textsDir, "*.txt"))
	more, _ := filepath.Glob(filepath.Join(textsDir, "poe", "*.txt"))
	paths = append(paths, more...)
	if len(paths) < 5 {
		t.Fatalf("found only %d texts in %s", len(paths), textsDir)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := string(data)
		ids := tok.Encode(s)
		if got, want := tok.Decode(ids), norm.NFC.String(s); got != want {
			t.Errorf("%s: round trip differs at byte %d", p, firstDiff(got, want))
		}
		if strings.HasSuffix(p, "gold-bug.txt") && streamAll(tok, ids) != s {
			t.Errorf("%s: streamed text differs", p)
		}
	}
}

func firstDiff(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// FuzzEncode: Encode never panics, pieces are real vocab ids, the round
// trip holds for valid UTF-8, and the stream equals Decode.
func FuzzEncode(f *testing.F) {
	for _, s := range []string{"", " ", "Hello, world!", "a  1\r\n\t x", "it's 'S", "<|im_start|>user\nhi<|im_end|>",
		"😀👍🏽 你好", "e\u0301\u0301", "\xff\xe4\xbd", "<|im_end", "'ſ\u00a0\u2028"} {
		f.Add(s)
	}
	tok := qwen25(f)
	f.Fuzz(func(t *testing.T, s string) {
		ids := tok.Encode(s)
		for _, id := range ids {
			if tok.Piece(id) == "" {
				t.Fatalf("Encode(%q): id %d has no piece", s, id)
			}
		}
		got := tok.Decode(ids)
		if utf8.ValidString(s) && got != norm.NFC.String(s) {
			t.Fatalf("Decode(Encode(%q)) = %q, want NFC %q", s, got, norm.NFC.String(s))
		}
		if streamed := streamAll(tok, ids); streamed != got {
			t.Fatalf("stream(%q) = %q, Decode %q", s, streamed, got)
		}
	})
}

// TestConcurrentEncode: one Tokenizer shared by goroutines (the app and
// the engine do this) gives every goroutine the same ids; run with -race.
func TestConcurrentEncode(t *testing.T) {
	tok := qwen25(t)
	data, err := os.ReadFile("../../assets/texts/gold-bug-passage.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := len(tok.Encode(string(data)))
	tok.cache = wordCache{} // start cold so that the goroutines fill the cache together
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			var err error
			for i := range 3 {
				if n := len(tok.Encode(string(data[g*7+i:]))); n == 0 || n > want+2 {
					err = fmt.Errorf("goroutine %d: %d tokens", g, n)
				}
				if got := tok.Decode(tok.Encode(string(data))); got != string(data) {
					err = fmt.Errorf("goroutine %d: round trip differs", g)
				}
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
