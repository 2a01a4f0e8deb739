package tokenizer

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkParse times reading the Qwen2.5 tokenizer.json, which the app
// does at every model open.
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(qwen25Path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	cpu := processCPU()
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu, len(data))
}

// reportCPU adds the process CPU time per op and the MB/s it implies.
func reportCPU(b *testing.B, start time.Duration, bytes int) {
	per := (processCPU() - start).Seconds() / float64(b.N)
	if per > 0 {
		b.ReportMetric(per*1e3, "cpu-ms/op")
		b.ReportMetric(float64(bytes)/per/1e6, "cpu-MB/s")
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
			cpu := processCPU()
			for b.Loop() {
				n = len(tok.Encode(text))
			}
			reportCPU(b, cpu, len(text))
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
	cpu := processCPU()
	for b.Loop() {
		tok.cache = wordCache{}
		tok.Encode(string(data))
	}
	reportCPU(b, cpu, len(data))
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
