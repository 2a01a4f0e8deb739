// Package hub finds models already on disk (the Hugging Face cache, GGUF
// files of LM Studio and llama.cpp) and downloads models from the Hugging
// Face Hub into that cache, in the layout huggingface_hub itself writes, so
// that other tools reuse the files and Loupe finds them again:
//
//	$HF_HUB_CACHE/models--ORG--NAME/
//	    blobs/<etag>                 the bytes, named by sha256 (LFS) or git sha1
//	    blobs/<etag>.incomplete      a partial download, resumed with Range
//	    snapshots/<commit>/<file>    relative symlink to ../../blobs/<etag>
//	    refs/main                    the commit that main pointed to
//
// No GUI here; the app and the CLI call Scan and Pull.
package hub

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// CacheDir is the Hugging Face hub cache, resolved the way huggingface_hub
// does: $HF_HUB_CACHE (or the older $HUGGINGFACE_HUB_CACHE), else
// $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else
// ~/.cache/huggingface/hub (also on Windows and macOS).
func CacheDir() string {
	for _, v := range []string{"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"} {
		if d := os.Getenv(v); d != "" {
			return expandHome(d)
		}
	}
	return filepath.Join(hfHome(), "hub")
}

// hfHome is $HF_HOME, else $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface.
func hfHome() string {
	if d := os.Getenv("HF_HOME"); d != "" {
		return expandHome(d)
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(expandHome(d), "huggingface")
	}
	return filepath.Join(homeDir(), ".cache", "huggingface")
}

func homeDir() string {
	h, err := os.UserHomeDir()
	if err != nil {
		return "."
	}
	return h
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`) {
		return filepath.Join(homeDir(), p[1:])
	}
	return p
}

// repoIDPattern is what the Hub accepts as ORG/NAME (one slash; letters,
// digits, '-', '_', '.'; no "--" or ".." that would confuse the folder name).
var repoIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// CheckRepoID refuses anything that is not ORG/NAME.
func CheckRepoID(id string) error {
	if !repoIDPattern.MatchString(id) || strings.Contains(id, "--") || strings.Contains(id, "..") {
		return fmt.Errorf("%q is not a Hugging Face model id: want ORG/NAME, e.g. Qwen/Qwen2.5-1.5B", id)
	}
	return nil
}

// RepoFolder is the cache folder name of a model repo: "models--ORG--NAME".
func RepoFolder(repoID string) string {
	return "models--" + strings.ReplaceAll(repoID, "/", "--")
}

// repoIDFromFolder inverts RepoFolder; ok is false for other folders
// (datasets--…, spaces--…, .locks).
func repoIDFromFolder(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, "models--")
	if !ok || rest == "" {
		return "", false
	}
	return strings.ReplaceAll(rest, "--", "/"), true
}

// Repo is one model's folder inside the cache.
type Repo struct {
	Cache, ID string
}

// Dir is cache/models--ORG--NAME.
func (r Repo) Dir() string { return filepath.Join(r.Cache, RepoFolder(r.ID)) }

// BlobPath is blobs/<etag>.
func (r Repo) BlobPath(etag string) string { return filepath.Join(r.Dir(), "blobs", etag) }

// SnapshotDir is snapshots/<commit>.
func (r Repo) SnapshotDir(commit string) string {
	return filepath.Join(r.Dir(), "snapshots", commit)
}

// commitPattern is a full git commit hash, as X-Repo-Commit sends it.
var commitPattern = regexp.MustCompile(`^[0-9a-f]{40}$`)

// ReadRef returns the commit refs/<name> points to ("" when absent).
func (r Repo) ReadRef(name string) string {
	data, err := os.ReadFile(filepath.Join(r.Dir(), "refs", filepath.FromSlash(name)))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// WriteRef records that revision name is commit, as huggingface_hub does
// when the revision asked for is not itself a commit hash.
func (r Repo) WriteRef(name, commit string) error {
	if name == commit {
		return nil
	}
	path := filepath.Join(r.Dir(), "refs", filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return writeFileAtomic(path, []byte(commit))
}

// Resolve returns the snapshot folder for a revision already in the cache:
// a commit hash, or a ref such as "main". ok is false when it is not there.
func (r Repo) Resolve(revision string) (string, bool) {
	commit := revision
	if c := r.ReadRef(revision); c != "" {
		commit = c
	}
	dir := r.SnapshotDir(commit)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", false
	}
	return dir, true
}

// linkSnapshot makes snapshots/<commit>/<file> point at blobs/<etag> with a
// relative symlink (../../blobs/<etag>, one more ../ per folder in file),
// exactly as huggingface_hub's _create_symlink. Where the file system has
// no symlinks (Windows without developer mode) the snapshot file is a hard
// link to the blob, else a copy (huggingface_hub's fallback is a copy).
func (r Repo) linkSnapshot(commit, file, etag string) error {
	dst := filepath.Join(r.SnapshotDir(commit), filepath.FromSlash(file))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	src := r.BlobPath(etag)
	rel, err := filepath.Rel(filepath.Dir(dst), src)
	if err != nil {
		return err
	}
	if target, err := os.Readlink(dst); err == nil && target == rel {
		return nil
	}
	if err := os.Remove(dst); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.Symlink(rel, dst); err == nil && sameSize(dst, src) {
		return nil
	}
	os.Remove(dst) // Wine reports success for links it did not make
	if err := os.Link(src, dst); err == nil && sameSize(dst, src) {
		return nil // NTFS hard links need no privilege and no second copy
	}
	os.Remove(dst)
	return copyFile(src, dst)
}

// sameSize says whether path resolves to a file the size of blob.
func sameSize(path, blob string) bool {
	a, err1 := os.Stat(path)
	b, err2 := os.Stat(blob)
	return err1 == nil && err2 == nil && a.Mode().IsRegular() && a.Size() == b.Size()
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := dst + ".tmp"
	out, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(tmp)
		return err
	}
	if err := out.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, dst)
}

func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
