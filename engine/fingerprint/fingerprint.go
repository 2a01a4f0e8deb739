// Package fingerprint names a model's files by their content, so that a
// saved session, a saved experiment and the cache of quantised copies
// agree on "the same model": a copy elsewhere keeps its fingerprint,
// other weights change it, and only kilobytes are read, not gigabytes.
package fingerprint

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
	"strings"
)

// Of hashes a model folder's config.json and, for each .safetensors
// file, its name, size and header (the tensor names, shapes and offsets);
// a GGUF file, its size, header and last megabyte. A modification time
// is not part of it: copying or touching the files keeps the model the
// same one.
func Of(path string) (string, error) {
	dir := path
	if fi, err := os.Stat(path); err != nil {
		return "", err
	} else if !fi.IsDir() && strings.EqualFold(filepath.Ext(path), ".gguf") {
		return ggufFingerprint(path, fi.Size())
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

// ggufFingerprint hashes a GGUF file's size, its first 4 MB (the header:
// metadata, tokenizer, every tensor's name, shape, type and offset) and
// its last megabyte (weights): a file has no config.json beside it, and
// its name is not its identity (a copy elsewhere keeps the fingerprint).
func ggufFingerprint(path string, size int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	fmt.Fprintf(h, "gguf %d\n", size)
	head := min(size, 4<<20)
	if _, err := io.CopyN(h, f, head); err != nil {
		return "", err
	}
	tail := min(size-head, 1<<20)
	if _, err := io.Copy(h, io.NewSectionReader(f, size-tail, tail)); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
