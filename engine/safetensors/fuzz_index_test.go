package safetensors

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzIndex feeds arbitrary bytes as model.safetensors.index.json beside a
// valid shard: Open must return an error or a set whose tensors all come
// from the shards the index names, never panic or open a file outside the
// folder.
func FuzzIndex(f *testing.F) {
	dir := f.TempDir()
	if err := Write(filepath.Join(dir, "model-00001-of-00001.safetensors"), sampleTensors(), nil); err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`{"metadata":{"total_size":35},"weight_map":{"b.bf16":"model-00001-of-00001.safetensors","a.f32":"model-00001-of-00001.safetensors","c.f16":"model-00001-of-00001.safetensors","d.i64":"model-00001-of-00001.safetensors","e.empty":"model-00001-of-00001.safetensors","f.u8":"model-00001-of-00001.safetensors"}}`))
	f.Add([]byte(`{"weight_map":{"a":"../etc/passwd"}}`))
	f.Add([]byte(`{"weight_map":{"a":"model-00001-of-00001.safetensors","zz":"model-00002-of-00002.safetensors"}}`))
	f.Add([]byte(`{"weight_map":[]}`))
	f.Add([]byte(`{"metadata":{"total_size":"x"},"weight_map":{}}`))
	p := filepath.Join(dir, "model.safetensors.index.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(p)
		if err != nil {
			return
		}
		defer s.Close()
		for _, n := range s.Names() {
			tn, _ := s.Tensor(n)
			if filepath.Dir(tn.File) != dir {
				t.Fatalf("tensor %q read from %s, outside %s", n, tn.File, dir)
			}
		}
	})
}
