package safetensors

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Names of a Hugging Face model folder's weight files.
const (
	SingleFileName = "model.safetensors"
	IndexFileName  = "model.safetensors.index.json"
)

// Set is an open model: one file or all shards of a sharded checkpoint.
type Set struct {
	tensors   map[string]Tensor
	names     []string
	meta      map[string]string
	maps      [][]byte
	fileBytes int64
}

// Open opens a .safetensors file, a model.safetensors.index.json, or a folder
// holding model.safetensors or (sharded) model.safetensors.index.json. Every
// file is validated whole before Open returns.
func Open(path string) (*Set, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("safetensors %s: %w", path, err)
	}
	if st.IsDir() {
		single := filepath.Join(path, SingleFileName)
		if _, err := os.Stat(single); err == nil {
			return openSingle(single)
		}
		index := filepath.Join(path, IndexFileName)
		if _, err := os.Stat(index); err == nil {
			return openIndex(index)
		}
		return nil, fmt.Errorf("safetensors %s: folder holds neither %s nor %s: %w", path, SingleFileName, IndexFileName, os.ErrNotExist)
	}
	if strings.HasSuffix(path, ".json") {
		return openIndex(path)
	}
	return openSingle(path)
}

func openSingle(path string) (*Set, error) {
	s := &Set{tensors: map[string]Tensor{}}
	if err := s.addFile(path); err != nil {
		s.Close() // a file that fails validation must not stay mapped
		return nil, err
	}
	s.finish()
	return s, nil
}

// addFile maps and validates one file and adds its tensors; on error the
// set's maps stay owned by s (the caller closes it).
func (s *Set) addFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("safetensors %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("safetensors %s: %w", path, err)
	}
	if st.IsDir() || !st.Mode().IsRegular() {
		return badFile(path, "not a regular file")
	}
	if st.Size() < 8 {
		return badFile(path, "file is %d bytes, shorter than the 8-byte header length", st.Size())
	}
	buf, err := mapFile(f, st.Size())
	if err != nil {
		return fmt.Errorf("safetensors %s: map: %w", path, err)
	}
	s.maps = append(s.maps, buf)
	s.fileBytes += st.Size()
	tensors, meta, err := parseFile(path, buf)
	if err != nil {
		return err
	}
	for name, t := range tensors {
		if old, dup := s.tensors[name]; dup {
			return badTensor(path, name, "also stored in %s", old.File)
		}
		s.tensors[name] = t
	}
	for k, v := range meta {
		if _, ok := s.meta[k]; !ok {
			if s.meta == nil {
				s.meta = map[string]string{}
			}
			s.meta[k] = v
		}
	}
	return nil
}

func (s *Set) finish() {
	s.names = make([]string, 0, len(s.tensors))
	for n := range s.tensors {
		s.names = append(s.names, n)
	}
	sort.Strings(s.names)
}

// Tensor returns the named tensor. Its Data is read-only and valid until Close.
func (s *Set) Tensor(name string) (Tensor, bool) {
	t, ok := s.tensors[name]
	return t, ok
}

// Names lists every tensor, sorted.
func (s *Set) Names() []string { return append([]string(nil), s.names...) }

// FileBytes is the total size of all files of the set.
func (s *Set) FileBytes() int64 { return s.fileBytes }

// Metadata is the header's __metadata__ (for a sharded set, the union of the
// shards', the first shard in name order winning a conflict). A copy.
func (s *Set) Metadata() map[string]string {
	m := make(map[string]string, len(s.meta))
	for k, v := range s.meta {
		m[k] = v
	}
	return m
}

// Close unmaps every file; tensors handed out before become invalid.
func (s *Set) Close() error {
	var first error
	for _, b := range s.maps {
		if err := unmapFile(b); err != nil && first == nil {
			first = err
		}
	}
	s.maps, s.tensors, s.names = nil, nil, nil
	return first
}
