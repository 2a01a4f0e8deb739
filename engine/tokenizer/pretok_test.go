package tokenizer

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestSplitSpecVectors checks the pre-tokenizer against the pieces listed
// in docs/spec/tokenizer.md §3.4 (computed with Python's regex module on the same
// pattern).
func TestSplitSpecVectors(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"Hello world", []string{"Hello", " world"}},
		{" Hello world", []string{" Hello", " world"}},
		{"Hello   world", []string{"Hello", "  ", " world"}},
		{"I'm fine, THEY'RE OK.", []string{"I", "'m", " fine", ",", " THEY", "'RE", " OK", "."}},
		{"'re 're", []string{"'re", " '", "re"}},
		{"price: $1234.50!!", []string{"price", ":", " $", "1", "2", "3", "4", ".", "5", "0", "!!"}},
		{"line1\n\nline2\r\n  indented", []string{"line", "1", "\n\n", "line", "2", "\r\n", " ", " indented"}},
		{"tabs\t\tand  spaces  ", []string{"tabs", "\t", "\tand", " ", " spaces", "  "}},
		{"Hi.\n\nBye", []string{"Hi", ".\n\n", "Bye"}},
		{"  \n  x", []string{"  \n", " ", " x"}},
		{"a  1", []string{"a", " ", " ", "1"}},
		{"x = 12+34;  // ok", []string{"x", " =", " ", "1", "2", "+", "3", "4", ";", " ", " //", " ok"}},
		{"你好，世界", []string{"你好", "，世界"}},
		{"¿Qué?", []string{"¿Qué", "?"}},
		{"a\u00A0b", []string{"a", "\u00A0b"}},
		{"😀 emoji", []string{"😀", " emoji"}},
		{"   ", []string{"   "}},
		{"", nil},
	}
	for _, c := range cases {
		if got := pieces(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("split(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func pieces(s string) []string {
	var out []string
	splitPieces(s, func(p string) { out = append(out, p) })
	return out
}

// TestContractionFolding: (?i) folds case the Unicode way: 'S, 'LL, 'Re
// and U+017F ſ (which folds to s) are contractions; other letters are not.
func TestContractionFolding(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"x'S", []string{"x", "'S"}},
		{"x'LL", []string{"x", "'LL"}},
		{"x'Re", []string{"x", "'Re"}},
		{"x'ſ", []string{"x", "'ſ"}},
		{"x'st", []string{"x", "'s", "t"}},
		{"x'K", []string{"x", "'K"}}, // no contraction: a word with a ' prefix
		{"x’s", []string{"x", "’s"}}, // U+2019 is not an apostrophe here
	}
	for _, c := range cases {
		if got := pieces(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("split(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestSplitCoversInput: pieces are non-empty and concatenate to the input,
// also for invalid UTF-8.
func TestSplitCoversInput(t *testing.T) {
	for _, s := range []string{"a\xffb", "\xe4\xbd", " \x80 x", "\t\xc3", "it's\r\n\r\n  \xf0"} {
		joined := ""
		for _, p := range pieces(s) {
			if p == "" {
				t.Fatalf("split(%q): empty piece", s)
			}
			joined += p
		}
		if joined != s {
			t.Errorf("split(%q) joins to %q", s, joined)
		}
	}
}

// TestByteLevelTable: the GPT-2 alphabet values quoted in docs/spec/tokenizer.md §4,
// and that the table is a bijection.
func TestByteLevelTable(t *testing.T) {
	want := map[byte]rune{0x00: 0x100, 0x09: 0x109, 0x0A: 0x10A, 0x20: 0x120, 0x21: '!', 0x7E: '~',
		0x7F: 0x121, 0x80: 0x122, 0xA0: 0x142, 0xA1: 0xA1, 0xAC: 0xAC, 0xAD: 0x143, 0xAE: 0xAE, 0xFF: 0xFF}
	for b, r := range want {
		if byteToRune[b] != r {
			t.Errorf("byte 0x%02X → U+%04X, want U+%04X", b, byteToRune[b], r)
		}
	}
	seen := map[rune]bool{}
	for b := 0; b < 256; b++ {
		r := byteToRune[b]
		if seen[r] || runeToByte[r] != int16(b) {
			t.Errorf("byte 0x%02X: U+%04X not a bijection", b, r)
		}
		seen[r] = true
	}
	if got := byteLevel(" world\n"); got != "Ġworld\u010a" {
		t.Errorf("byteLevel = %q", got)
	}
}

// TestSplitMatchesRegexModule checks both patterns against Python's regex
// module on strings with combining marks (testdata/qwen35-pretok.jsonl,
// written by tools/pretok/qwen35_cases.py): Qwen3.5 keeps marks in words,
// Qwen2 treats them as symbols.
func TestSplitMatchesRegexModule(t *testing.T) {
	data, err := os.ReadFile("testdata/qwen35-pretok.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var c struct {
			Text          string
			Qwen2, Qwen35 []string
		}
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		for _, sp := range []struct {
			name string
			s    splitter
			want []string
		}{{"qwen2", splitter{}, c.Qwen2}, {"qwen3.5", splitter{marks: true}, c.Qwen35}} {
			var got []string
			sp.s.split(c.Text, func(p string) { got = append(got, p) })
			if len(got) == 0 && len(sp.want) == 0 {
				continue
			}
			if !reflect.DeepEqual(got, sp.want) {
				t.Errorf("%s split(%q) = %q, regex module gives %q", sp.name, c.Text, got, sp.want)
			}
		}
		n++
	}
	if n < 400 {
		t.Fatalf("only %d cases", n)
	}
}

// TestSplitGPT2FamilyMatchesRegexModule: the gpt-2, smollm and default
// pre-tokenizers against Python's regex module applying llama.cpp's lists
// of regexes (testdata/gpt2-pretok.jsonl, written by
// tools/pretok/gpt2_cases.py).
func TestSplitGPT2FamilyMatchesRegexModule(t *testing.T) {
	data, err := os.ReadFile("testdata/gpt2-pretok.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var c struct {
			Text                  string
			GPT2, SmolLM, Default []string
		}
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatal(err)
		}
		for _, sp := range []struct {
			name string
			kind uint8
			want []string
		}{{"gpt2", kindGPT2, c.GPT2}, {"smollm", kindSmolLM, c.SmolLM}, {"default", kindDefault, c.Default}} {
			var got []string
			splitter{kind: sp.kind}.split(c.Text, func(p string) { got = append(got, p) })
			if !reflect.DeepEqual(got, sp.want) && len(got)+len(sp.want) > 0 {
				t.Errorf("%s split(%q) = %q, regex module gives %q", sp.name, c.Text, got, sp.want)
			}
		}
		n++
	}
	if n < 500 {
		t.Fatalf("only %d cases", n)
	}
}
