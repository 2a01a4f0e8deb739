package cli

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// snapshot lists every entry under dir with its mode, size, modification
// time and, for files, sha256: two equal snapshots mean nothing was
// created, removed or changed.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		v := fmt.Sprintf("%v %d %d", st.Mode(), st.Size(), st.ModTime().UnixNano())
		if st.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		out[p] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestModelFolderIsNeverWritten: every command that reads a model, run on
// a read-only copy of a model folder (chmod -w; root ignores the bits, so
// the test compares snapshots), creates and changes nothing there.
func TestModelFolderIsNeverWritten(t *testing.T) {
	dir := tinyDir(t)
	var files []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		files = append(files, p)
		return err
	})
	for _, p := range files {
		st, _ := os.Stat(p)
		if err := os.Chmod(p, st.Mode().Perm()&^0o222); err != nil {
			t.Fatal(err)
		}
	}
	defer os.Chmod(dir, 0o755) // let t.TempDir clean up
	before := snapshot(t, dir)
	cmds := [][]string{
		{"run", "--model", dir, "--prompt", "Once upon a time", "--max-tokens", "4"},
		{"run", "--model", dir, "--prompt", "Once upon a time", "--max-tokens", "4", "--json", "--temperature", "0.8", "--seed", "3"},
		{"run", "--model", filepath.Join(dir, "model.safetensors"), "--prompt", "x", "--max-tokens", "2"},
		{"tokenize", "--model", dir, "--text", "Once upon a time"},
	}
	if Has("inspect") {
		cmds = append(cmds, []string{"inspect", "--model", dir, "--prompt", "Once upon a time", "--pos", "2", "--json"})
	}
	for _, args := range cmds {
		var o, e strings.Builder
		if code := Main(args, &o, &e); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, e.String())
		}
	}
	after := snapshot(t, dir)
	for p, v := range after {
		if before[p] != v {
			t.Errorf("%s changed or appeared: %q, was %q", p, v, before[p])
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("%s disappeared", p)
		}
	}
}
