package fingerprint

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"loupe/engine/genmodel"
)

// writeFolder writes a model folder: config.json and one safetensors file
// whose header is header, followed by weights.
func writeFolder(t *testing.T, dir, config, header string, weights []byte) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	data := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	data = append(append(data, header...), weights...)
	if err := os.WriteFile(filepath.Join(dir, "model.safetensors"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A folder's fingerprint follows its config and tensor headers, not where
// it lies nor when it was written.
func TestFolderFingerprint(t *testing.T) {
	root := t.TempDir()
	cfg, hdr := `{"model_type":"qwen2"}`, `{"w":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}}`
	a, b := filepath.Join(root, "a"), filepath.Join(root, "elsewhere", "b")
	writeFolder(t, a, cfg, hdr, []byte{1, 2, 3, 4})
	writeFolder(t, b, cfg, hdr, []byte{1, 2, 3, 4})
	old := time.Now().Add(-48 * time.Hour)
	os.Chtimes(filepath.Join(b, "model.safetensors"), old, old)
	fa, err := Of(a)
	if err != nil || !strings.HasPrefix(fa, "sha256:") {
		t.Fatalf("fingerprint %q, %v", fa, err)
	}
	if fb, err := Of(b); err != nil || fb != fa {
		t.Errorf("a copy elsewhere, older: %q %v, want %q", fb, err, fa)
	}
	if fw, _ := Of(filepath.Join(a, "model.safetensors")); fw != fa {
		t.Errorf("the weight file names its folder: %q, want %q", fw, fa)
	}
	writeFolder(t, b, cfg, strings.Replace(hdr, "[2]", "[1]", 1), []byte{1, 2, 3, 4})
	if fb, _ := Of(b); fb == fa {
		t.Error("another tensor shape, same fingerprint")
	}
	writeFolder(t, b, `{"model_type":"llama"}`, hdr, []byte{1, 2, 3, 4})
	if fb, _ := Of(b); fb == fa {
		t.Error("another config, same fingerprint")
	}
	os.Remove(filepath.Join(b, "config.json"))
	if _, err := Of(b); err == nil {
		t.Error("a folder without config.json: want an error")
	}
	if _, err := Of(filepath.Join(root, "missing")); err == nil {
		t.Error("a missing folder: want an error")
	}
}

// A GGUF file is fingerprinted by its own bytes: a copy elsewhere keeps
// it, other weights change it.
func TestGGUFFingerprint(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.gguf"), filepath.Join(dir, "copy", "b.gguf")
	if err := genmodel.WriteGGUFModel(a, "tiny", 1, "q8_0"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(b), 0o755)
	if err := os.WriteFile(b, data, 0o644); err != nil {
		t.Fatal(err)
	}
	fa, err := Of(a)
	if err != nil {
		t.Fatal(err)
	}
	if fb, err := Of(b); err != nil || fb != fa {
		t.Errorf("a copy: %q %v, want %q", fb, err, fa)
	}
	data[len(data)-1] ^= 1 // the last weight's bits
	os.WriteFile(b, data, 0o644)
	if fb, _ := Of(b); fb == fa {
		t.Error("other weights, same fingerprint")
	}
}
