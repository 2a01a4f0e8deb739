package safetensors

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzOpen feeds arbitrary bytes to Open: it must return an error or a set
// whose every tensor lies inside the file and decodes, never panic.
func FuzzOpen(f *testing.F) {
	dir := f.TempDir()
	good := filepath.Join(dir, "good.safetensors")
	if err := Write(good, sampleTensors(), map[string]string{"format": "pt"}); err != nil {
		f.Fatal(err)
	}
	b, _ := os.ReadFile(good)
	f.Add(b)
	f.Add(rawFile(`{"x":`+okEntry+`}`, []byte{1, 2, 3, 4}))
	f.Add(rawFile(`{"x":{"dtype":"U8","shape":[4],"data_offsets":[10,4]}}`, make([]byte, 10)))
	f.Add(rawFile(`{"a":`+okEntry+`,"a":`+okEntry+`}`, make([]byte, 4)))
	f.Add(rawFile(`{"__metadata__":{"a":"b"},"x":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}}`, make([]byte, 4)))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		// one file per exec in the target's folder: a t.TempDir per exec
		// slows the fuzzing engine down to a crawl
		tmp, err := os.CreateTemp(dir, "f*.safetensors")
		if err != nil {
			t.Fatal(err)
		}
		p := tmp.Name()
		defer os.Remove(p)
		_, err = tmp.Write(data)
		if cerr := tmp.Close(); err != nil || cerr != nil {
			t.Fatal(err, cerr)
		}
		s, err := Open(p)
		if err != nil {
			return
		}
		defer s.Close()
		var total int64
		for _, n := range s.Names() {
			tn, _ := s.Tensor(n)
			total += int64(len(tn.Data))
			tn.F32()
			tn.BF16()
		}
		if total > s.FileBytes() {
			t.Fatalf("tensors hold %d bytes, file has %d", total, s.FileBytes())
		}
	})
}
