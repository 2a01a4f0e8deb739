package safetensors

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// shardedDir writes two shards and an index; tweak edits the index JSON.
func shardedDir(t *testing.T, index string) string {
	t.Helper()
	dir := t.TempDir()
	u8 := func(name string, v byte) Tensor {
		return Tensor{Name: name, DType: "U8", Shape: []int{1}, Data: []byte{v}}
	}
	if err := Write(filepath.Join(dir, "model-00001-of-00002.safetensors"), []Tensor{u8("a", 1), u8("b", 2)}, map[string]string{"format": "pt"}); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(dir, "model-00002-of-00002.safetensors"), []Tensor{u8("c", 3)}, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, IndexFileName), []byte(index), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

const goodIndex = `{"metadata":{"total_size":3},"weight_map":{
 "a":"model-00001-of-00002.safetensors","b":"model-00001-of-00002.safetensors",
 "c":"model-00002-of-00002.safetensors"}}`

func TestShardedOpen(t *testing.T) {
	dir := shardedDir(t, goodIndex)
	for _, p := range []string{dir, filepath.Join(dir, IndexFileName)} {
		s, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Names(); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
			t.Errorf("Names = %v", got)
		}
		c, _ := s.Tensor("c")
		if c.Data[0] != 3 || filepath.Base(c.File) != "model-00002-of-00002.safetensors" {
			t.Errorf("c = %+v", c)
		}
		if s.Metadata()["format"] != "pt" {
			t.Errorf("Metadata = %v", s.Metadata())
		}
		var want int64
		for _, f := range []string{"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"} {
			st, _ := os.Stat(filepath.Join(dir, f))
			want += st.Size()
		}
		if s.FileBytes() != want {
			t.Errorf("FileBytes = %d, want %d", s.FileBytes(), want)
		}
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}
}

func TestShardedRejects(t *testing.T) {
	s1, s2 := `"model-00001-of-00002.safetensors"`, `"model-00002-of-00002.safetensors"`
	cases := []struct{ name, index, want string }{
		{"missing shard", `{"weight_map":{"a":` + s1 + `,"b":` + s1 + `,"c":` + s2 + `,"d":"model-00003-of-00003.safetensors"}}`, "model-00003-of-00003.safetensors"},
		{"tensor in other shard", `{"weight_map":{"a":` + s1 + `,"b":` + s1 + `,"c":` + s1 + `}}`, `"c": the index maps it to model-00001-of-00002.safetensors, which does not hold it`},
		{"tensor not in index", `{"weight_map":{"a":` + s1 + `,"c":` + s2 + `}}`, `"b": is stored here but missing from the index`},
		{"wrong shard", `{"weight_map":{"a":` + s1 + `,"b":` + s2 + `,"c":` + s2 + `}}`, `"b": is stored here but the index maps it to model-00002`},
		{"tensor not in shard", `{"weight_map":{"a":` + s1 + `,"b":` + s1 + `,"c":` + s2 + `,"z":` + s2 + `}}`, `"z": the index maps it to model-00002-of-00002.safetensors, which does not hold it`},
		{"duplicate key", `{"weight_map":{"a":` + s1 + `,"a":` + s1 + `,"b":` + s1 + `,"c":` + s2 + `}}`, `"a": appears twice in weight_map`},
		{"path traversal", `{"weight_map":{"a":"../model-00001-of-00002.safetensors"}}`, "not a plain"},
		{"absolute path", `{"weight_map":{"a":"/etc/passwd.safetensors"}}`, "not a plain"},
		{"wrong suffix", `{"weight_map":{"a":"model.bin"}}`, "not a plain"},
		{"no weight_map", `{"metadata":{}}`, "no weight_map"},
		{"bad JSON", `{"weight_map":`, "ends early"},
		{"non-string shard", `{"weight_map":{"a":1}}`, "want a string"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Open(shardedDir(t, c.index))
			if err == nil {
				s.Close()
				t.Fatal("Open accepted the set")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

// Two shards holding the same tensor, both mapped: ambiguous, refused.
func TestShardedDuplicateTensor(t *testing.T) {
	dir := shardedDir(t, goodIndex)
	dup := filepath.Join(dir, "model-00002-of-00002.safetensors")
	os.Remove(dup)
	u8 := Tensor{DType: "U8", Shape: []int{1}, Data: []byte{9}}
	a, c := u8, u8
	a.Name, c.Name = "a", "c"
	if err := Write(dup, []Tensor{a, c}, nil); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir)
	if err == nil || !errors.Is(err, ErrBadFile) || !strings.Contains(err.Error(), "also stored in") {
		t.Fatalf("err = %v", err)
	}
}
