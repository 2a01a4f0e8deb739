package app

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// A model's fingerprint, which a session names to find the model again.

// Fingerprint hashes a model folder's config.json and, for each
// .safetensors file, its name, size and header (the tensor names, shapes
// and offsets): it changes when the weights are replaced by others, and
// reads a few kilobytes, not gigabytes.
func Fingerprint(path string) (string, error) {
	dir := path
	if fi, err := os.Stat(path); err != nil {
		return "", err
	} else if !fi.IsDir() {
		dir = filepath.Dir(path)
	}
	h := sha256.New()
	cfg, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "config.json %d\n", len(cfg))
	h.Write(cfg)
	files, _ := filepath.Glob(filepath.Join(dir, "*.safetensors"))
	slices.Sort(files)
	for _, f := range files {
		if err := hashHeader(h, f); err != nil {
			return "", err
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// hashHeader adds a safetensors file's name, size and JSON header to h.
func hashHeader(h io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "%s %d\n", filepath.Base(path), fi.Size())
	var n uint64
	if err := binary.Read(f, binary.LittleEndian, &n); err != nil {
		return nil // too short to be safetensors: name and size only
	}
	_, err = io.CopyN(h, f, int64(min(n, 64<<20)))
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return err
}
