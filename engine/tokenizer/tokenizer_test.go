package tokenizer

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"reflect"
	"sync"
	"testing"
)

const (
	qwen25Path = "../../assets/qwen2.5/tokenizer.json"
	qwen3Path  = "../../testdata/qwen3/tokenizer.json.gz" // the upstream Qwen3 file, gzipped
	casesPath  = "../../testdata/tokenizer-cases.jsonl"
	specPath   = "../../testdata/qwen3-vs-qwen25-special-cases.jsonl"
	textsDir   = "../../testdata/texts"
)

var (
	qwenOnce sync.Once
	qwenTok  *Tokenizer
	qwenErr  error
)

// qwen25 loads the repository's Qwen2.5 tokenizer once for all tests.
func qwen25(tb testing.TB) *Tokenizer {
	tb.Helper()
	qwenOnce.Do(func() { qwenTok, qwenErr = Load(qwen25Path) })
	if qwenErr != nil {
		tb.Fatal(qwenErr)
	}
	return qwenTok
}

// readJSONL decodes every line of a JSON-lines file into a fresh T.
func readJSONL[T any](tb testing.TB, path string) []T {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			tb.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

type refCase struct {
	Text string `json:"text"`
	IDs  []int  `json:"ids"`
}

// TestReferenceCases checks every string of tokenizer-cases.jsonl against
// the ids of the Hugging Face tokenizer.
func TestReferenceCases(t *testing.T) {
	tok := qwen25(t)
	cases := readJSONL[refCase](t, casesPath)
	if len(cases) != 42 {
		t.Fatalf("%s: %d cases, want 42", casesPath, len(cases))
	}
	for _, c := range cases {
		got := tok.Encode(c.Text)
		if !equalIDs(got, c.IDs) {
			t.Errorf("Encode(%q)\n got %v\nwant %v", c.Text, got, c.IDs)
		}
	}
}

// loadGzip parses a gzipped tokenizer.json.
func loadGzip(tb testing.TB, path string) *Tokenizer {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	tok, err := Parse(data)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return tok
}

func equalIDs(a, b []int) bool {
	return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b))
}

type specialCase struct {
	Text   string `json:"text"`
	Qwen3  []int  `json:"ids_qwen3"`
	Qwen25 []int  `json:"ids_qwen25"`
}

// TestQwen25VsQwen3Special checks the strings with <think> and
// <tool_response>: ordinary text in Qwen2.5, added tokens in Qwen3.
func TestQwen25VsQwen3Special(t *testing.T) {
	cases := readJSONL[specialCase](t, specPath)
	check := func(tok *Tokenizer, want func(specialCase) []int) {
		for _, c := range cases {
			if got := tok.Encode(c.Text); !equalIDs(got, want(c)) {
				t.Errorf("Encode(%q)\n got %v\nwant %v", c.Text, got, want(c))
			}
		}
	}
	check(qwen25(t), func(c specialCase) []int { return c.Qwen25 })
	check(loadGzip(t, qwen3Path), func(c specialCase) []int { return c.Qwen3 })
}

// TestGoldBugPassage: the passage timed in the article
// “The two times of an answer” is 3,139 tokens.
func TestGoldBugPassage(t *testing.T) {
	data, err := os.ReadFile("../../assets/texts/gold-bug-passage.txt")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(qwen25(t).Encode(string(data))); n != 3139 {
		t.Errorf("gold-bug-passage.txt: %d tokens, want 3139", n)
	}
}
