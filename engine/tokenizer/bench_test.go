package tokenizer

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkParse times reading the Qwen2.5 tokenizer.json, which the app
// does at every model open.
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(qwen25Path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncode reports MB/s of English text on one goroutine. The
// word cache is warm after the first iteration, as in an app session.
func BenchmarkEncode(b *testing.B) {
	for _, name := range []string{"tinyshakespeare.txt", "gold-bug.txt"} {
		b.Run(name, func(b *testing.B) {
			data, err := os.ReadFile(filepath.Join(textsDir, name))
			if err != nil {
				b.Fatal(err)
			}
			tok := qwen25(b)
			text := string(data)
			b.SetBytes(int64(len(text)))
			n := 0
			for b.Loop() {
				n = len(tok.Encode(text))
			}
			b.ReportMetric(float64(len(text))/float64(n), "bytes/token")
		})
	}
}

// BenchmarkEncodeCold is BenchmarkEncode with an empty word cache each
// time: the cost of BPE itself.
func BenchmarkEncodeCold(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(textsDir, "gold-bug.txt"))
	if err != nil {
		b.Fatal(err)
	}
	tok := qwen25(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		tok.cache = wordCache{}
		tok.Encode(string(data))
	}
}

// BenchmarkDecode reports MB/s of text produced.
func BenchmarkDecode(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(textsDir, "gold-bug.txt"))
	if err != nil {
		b.Fatal(err)
	}
	tok := qwen25(b)
	ids := tok.Encode(string(data))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		tok.Decode(ids)
	}
}
