package perf

import "testing"

// TestMappedWeights reads a hand-written smaps excerpt: only the
// .safetensors and .gguf mappings count, whatever else the process maps.
func TestMappedWeights(t *testing.T) {
	smaps := `7f0000000000-7f00b8000000 r--s 00000000 fe:01 1234                       /m/model.safetensors
Size:            3014656 kB
Rss:             3014656 kB
FilePmdMapped:   2983936 kB
7f1000000000-7f1000200000 r-xp 00000000 fe:01 99                         /usr/lib/libc.so.6
Rss:                2048 kB
FilePmdMapped:      2048 kB
7f2000000000-7f2000001000 rw-p 00000000 00:00 0 
Rss:                   4 kB
7f3000000000-7f3000400000 r--s 00000000 fe:01 1235                       /m/model-00002-of-00002.safetensors
Rss:                4096 kB
FilePmdMapped:         0 kB
7f4000000000-7f4000600000 r--s 00000000 fe:01 1236                       /m/olmoe-Q8_0.gguf
Rss:                6144 kB
FilePmdMapped:      4096 kB
7f5000000000-7f5000200000 r--p 00000000 fe:01 1237                       /m/notes.gguf.txt
Rss:                2048 kB
FilePmdMapped:      2048 kB
`
	pmd, rss := mappedWeights([]byte(smaps))
	if want := int64(2983936+4096) << 10; pmd != want {
		t.Errorf("FilePmdMapped %d, want %d", pmd, want)
	}
	if want := int64(3014656+4096+6144) << 10; rss != want {
		t.Errorf("Rss %d, want %d", rss, want)
	}
	if p, r := mappedWeights(nil); p != 0 || r != 0 {
		t.Errorf("empty smaps: %d, %d", p, r)
	}
}
