package safetensors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"
)

const (
	maxShards    = 1000
	maxIndexSize = 64 << 20 // a 7B index is ~30 KB
)

// openIndex opens a sharded checkpoint (docs/spec/formats.md A.5): every shard the
// index names, each validated on its own; every tensor must sit in exactly
// the shard the index maps it to.
func openIndex(path string) (*Set, error) {
	weightMap, err := readIndex(path)
	if err != nil {
		return nil, err
	}
	shardSet := map[string]bool{}
	for _, shard := range weightMap {
		shardSet[shard] = true
	}
	if len(shardSet) > maxShards {
		return nil, badFile(path, "index names %d shards, more than the %d allowed", len(shardSet), maxShards)
	}
	shards := make([]string, 0, len(shardSet))
	for shard := range shardSet {
		shards = append(shards, shard)
	}
	sort.Strings(shards)
	s := &Set{tensors: map[string]Tensor{}}
	dir := filepath.Dir(path)
	for _, shard := range shards {
		if err := s.addFile(filepath.Join(dir, shard)); err != nil {
			s.Close()
			return nil, err
		}
	}
	if err := checkWeightMap(path, weightMap, s.tensors); err != nil {
		s.Close()
		return nil, err
	}
	s.finish()
	return s, nil
}

// checkWeightMap requires the index and the shards to agree tensor by tensor.
func checkWeightMap(path string, weightMap map[string]string, tensors map[string]Tensor) error {
	for name, t := range tensors {
		want, ok := weightMap[name]
		if !ok {
			return badTensor(t.File, name, "is stored here but missing from the index %s", path)
		}
		if filepath.Base(t.File) != want {
			return badTensor(t.File, name, "is stored here but the index maps it to %s", want)
		}
	}
	for name, shard := range weightMap {
		if _, ok := tensors[name]; !ok {
			return badTensor(path, name, "the index maps it to %s, which does not hold it", shard)
		}
	}
	return nil
}

// readIndex reads {"metadata": …, "weight_map": {tensor: shard, …}} with a
// token walk that rejects duplicated keys.
func readIndex(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("safetensors %s: %w", path, err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxIndexSize+1))
	if err != nil {
		return nil, fmt.Errorf("safetensors %s: %w", path, err)
	}
	if len(raw) > maxIndexSize {
		return nil, badFile(path, "index is larger than %d bytes", maxIndexSize)
	}
	if !utf8.Valid(raw) {
		return nil, badFile(path, "index is not valid UTF-8")
	}
	h := headerDecoder{file: path, dec: json.NewDecoder(bytes.NewReader(raw))}
	h.dec.UseNumber()
	return h.index()
}

func (h *headerDecoder) index() (map[string]string, error) {
	if err := h.delim('{', ""); err != nil {
		return nil, err
	}
	var weightMap map[string]string
	seen := map[string]bool{}
	for h.dec.More() {
		key, err := h.str("", "index key")
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, badFile(h.file, "index key %q appears twice", key)
		}
		seen[key] = true
		if key == "weight_map" {
			if weightMap, err = h.weightMap(); err != nil {
				return nil, err
			}
			continue
		}
		var skip json.RawMessage // "metadata" and anything else: informational only
		if err := h.dec.Decode(&skip); err != nil {
			return nil, h.syntax("", err)
		}
	}
	if err := h.delim('}', ""); err != nil {
		return nil, err
	}
	if _, err := h.dec.Token(); err != io.EOF {
		return nil, badFile(h.file, "index has data after its closing '}'")
	}
	if weightMap == nil {
		return nil, badFile(h.file, "index has no weight_map")
	}
	return weightMap, nil
}

func (h *headerDecoder) weightMap() (map[string]string, error) {
	if err := h.delim('{', ""); err != nil {
		return nil, err
	}
	m := map[string]string{}
	for h.dec.More() {
		name, err := h.str("", "weight_map key")
		if err != nil {
			return nil, err
		}
		if _, dup := m[name]; dup {
			return nil, badTensor(h.file, name, "appears twice in weight_map")
		}
		shard, err := h.str(name, "shard name")
		if err != nil {
			return nil, err
		}
		if !plainShardName(shard) {
			return nil, badTensor(h.file, name, "shard %q is not a plain *.safetensors file name", shard)
		}
		m[name] = shard
	}
	return m, h.delim('}', "")
}

// plainShardName refuses paths: a shard must resolve inside the model folder.
func plainShardName(s string) bool {
	return strings.HasSuffix(s, ".safetensors") && !strings.ContainsAny(s, "/\\:") &&
		!strings.HasPrefix(s, "..") && filepath.Base(s) == s
}
