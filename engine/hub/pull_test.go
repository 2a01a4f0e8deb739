package hub

import (
	"context"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"loupe/engine"
	"loupe/engine/genmodel"
	"loupe/engine/gguf"
	"loupe/engine/hub/fakehub"
)

const commit = "0123456789abcdef0123456789abcdef01234567"

// tinyRepo is the genmodel tiny Qwen2 model served as ORG/NAME.
func tinyRepo(t *testing.T, id string) *fakehub.Repo {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "src")
	if err := genmodel.Write(dir, "tiny", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	r, err := fakehub.FromDir(id, commit, dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// bigRepo is a repo whose weights are n random bytes (not a model the
// engine can run; enough to cut and resume).
func bigRepo(id string, n int) *fakehub.Repo {
	data := make([]byte, n)
	rand.Read(data)
	return &fakehub.Repo{ID: id, Commit: commit, Corrupt: map[string]bool{}, Files: []fakehub.File{
		{Name: "config.json", Data: []byte(`{"model_type":"qwen2"}`)},
		{Name: "model.safetensors", Data: data, LFS: true},
		{Name: "pytorch_model.bin", Data: []byte("not wanted"), LFS: true},
		{Name: "onnx/model.onnx", Data: []byte("not wanted either")},
	}}
}

func testClient(h *fakehub.Hub) *Client {
	c := NewClient()
	c.Endpoint, c.Token, c.Cache, c.Offline = h.URL, "", filepath.Join(os.TempDir(), "unset"), false
	c.StallTimeout, c.Retries, c.RetryWait = 5*time.Second, 3, 10*time.Millisecond
	return c
}

func newCache(t *testing.T, c *Client) string {
	c.Cache = filepath.Join(t.TempDir(), "hub")
	return c.Cache
}

func sha256Hex(data []byte) string { s := sha256.Sum256(data); return hex.EncodeToString(s[:]) }

// TestPullLayout pulls the tiny model and checks the cache layout file by
// file as huggingface_hub writes it, that huggingface_hub's lookup finds
// every file, that the engine loads the snapshot, and that a second pull
// downloads nothing.
func TestPullLayout(t *testing.T) {
	repo := tinyRepo(t, "loupe-test/tiny")
	h := fakehub.New(repo)
	defer h.Close()
	c := testClient(h)
	cache := newCache(t, c)
	var last Progress
	dir, err := c.Pull(context.Background(), "loupe-test/tiny", "", func(p Progress) { last = p })
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(cache, "models--loupe-test--tiny", "snapshots", commit)
	if dir != want {
		t.Fatalf("snapshot %s, want %s", dir, want)
	}
	if ref, _ := os.ReadFile(filepath.Join(cache, "models--loupe-test--tiny", "refs", "main")); string(ref) != commit {
		t.Errorf("refs/main = %q, want %q", ref, commit)
	}
	var total int64
	for _, f := range repo.Files {
		total += int64(len(f.Data))
		etag := gitBlobSHA1(f.Data)
		if f.LFS {
			etag = sha256Hex(f.Data)
		}
		link := filepath.Join(dir, f.Name)
		target, err := os.Readlink(link)
		if err != nil {
			t.Errorf("%s: not a symlink: %v", f.Name, err)
			continue
		}
		if target != "../../blobs/"+etag {
			t.Errorf("%s -> %s, want ../../blobs/%s", f.Name, target, etag)
		}
		got, err := os.ReadFile(filepath.Join(cache, "models--loupe-test--tiny", "blobs", etag))
		if err != nil || string(got) != string(f.Data) {
			t.Errorf("blob of %s: %d bytes, err %v", f.Name, len(got), err)
		}
		if p := tryToLoadFromCache(cache, "loupe-test/tiny", f.Name, "main"); p == "" {
			t.Errorf("huggingface_hub's lookup does not find %s", f.Name)
		}
	}
	if !last.Finished || last.Done != total || last.Total != total {
		t.Errorf("last progress %+v, want finished with %d of %d bytes", last, total, total)
	}
	if left, _ := filepath.Glob(filepath.Join(cache, "models--loupe-test--tiny", "blobs", "*.incomplete")); len(left) > 0 {
		t.Errorf("partial files left: %v", left)
	}
	m, err := engine.Load(dir, engine.LoadOptions{Threads: 1})
	if err != nil {
		t.Fatalf("the engine cannot open the pulled model: %v", err)
	}
	m.Close()

	before := len(h.Log())
	if _, err := c.Pull(context.Background(), "loupe-test/tiny", "main", nil); err != nil {
		t.Fatal(err)
	}
	for _, l := range h.Log()[before:] {
		if strings.HasPrefix(l, "GET /cdn/") || strings.HasPrefix(l, "GET /loupe-test/tiny/resolve/") {
			t.Errorf("second pull downloaded again: %s", l)
		}
	}
}

// gitBlobSHA1 is the git blob id of data: sha1("blob SIZE\0" + data).
func gitBlobSHA1(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// tryToLoadFromCache follows huggingface_hub's try_to_load_from_cache
// (file_download.py): the repo folder models--{org}--{name}; refs/{rev}
// gives the commit (a commit hash is used as is); the answer is
// snapshots/{commit}/{filename} if it is a file (symlinks followed).
func tryToLoadFromCache(cache, repoID, filename, revision string) string {
	repoCache := filepath.Join(cache, "models--"+strings.ReplaceAll(repoID, "/", "--"))
	if st, err := os.Stat(repoCache); err != nil || !st.IsDir() {
		return ""
	}
	commitHash := revision
	if data, err := os.ReadFile(filepath.Join(repoCache, "refs", revision)); err == nil {
		commitHash = string(data)
	}
	path := filepath.Join(repoCache, "snapshots", commitHash, filename)
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		return path
	}
	return ""
}

// TestListFindsPulledModel: Scan lists the pulled model with its size and
// that it opens, and a folder the engine refuses with the engine's reason.
func TestListFindsPulledModel(t *testing.T) {
	repo := tinyRepo(t, "loupe-test/tiny")
	h := fakehub.New(repo)
	defer h.Close()
	c := testClient(h)
	cache := newCache(t, c)
	if _, err := c.Pull(context.Background(), "loupe-test/tiny", "main", nil); err != nil {
		t.Fatal(err)
	}
	// A llama repo in the same cache, written by hand in the same layout.
	other := Repo{Cache: cache, ID: "someone/other-arch"}
	snap := other.SnapshotDir(commit)
	os.MkdirAll(snap, 0o755)
	os.WriteFile(filepath.Join(snap, "config.json"), []byte(`{"architectures":["MambaForCausalLM"],"model_type":"mamba"}`), 0o644)
	// The tiny model again, its weights cut at half: a download that stopped.
	half := Repo{Cache: cache, ID: "someone/half-download"}.SnapshotDir(commit)
	os.MkdirAll(half, 0o755)
	for _, f := range repo.Files {
		data := f.Data
		if f.Name == "model.safetensors" {
			data = data[:len(data)/2]
		}
		os.WriteFile(filepath.Join(half, f.Name), data, 0o644)
	}
	ggufDir := filepath.Join(t.TempDir(), "lmstudio")
	os.MkdirAll(filepath.Join(ggufDir, "org", "model-GGUF"), 0o755)
	if err := gguf.WriteFile(filepath.Join(ggufDir, "org", "model-GGUF", "model-Q4_K_M.gguf"),
		[]gguf.KV{{Key: "general.architecture", Value: "qwen2"}}, nil); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ggufDir, "org", "model-GGUF", "broken.gguf"), []byte("GGUF\x03\x00\x00\x00rest"), 0o644)

	found := Scan([]Place{{Source: "Hugging Face cache", Dir: cache, HF: true}, {Source: "LM Studio", Dir: ggufDir}})
	if len(found) != 5 {
		t.Fatalf("found %d models, want 5: %+v", len(found), found)
	}
	tiny := found[0]
	var size int64
	for _, f := range repo.Files {
		size += int64(len(f.Data))
	}
	if tiny.Name != "loupe-test/tiny" || !tiny.CanOpen || tiny.Bytes != size || tiny.Revision != "main" || tiny.Format != "safetensors" {
		t.Errorf("tiny: %+v, want it openable, %d bytes, revision main", tiny, size)
	}
	for _, m := range found[1:] {
		switch m.Format {
		case "gguf":
			want := "key qwen2.embedding_length is missing" // metadata only: refused by the engine's checks
			if m.Name == "org/model-GGUF/broken.gguf" {
				want = "not a valid GGUF file"
			}
			if m.Source != "LM Studio" || m.CanOpen || !strings.Contains(m.Why, want) {
				t.Errorf("gguf: %+v, want refused with %q", m, want)
			}
		default:
			if m.Name == "someone/half-download" {
				if m.CanOpen || !strings.Contains(m.Why, "model.safetensors") {
					t.Errorf("half a download: %+v, want refused naming model.safetensors", m)
				}
				continue
			}
			if m.Name != "someone/other-arch" || m.CanOpen || !strings.Contains(m.Why, "mamba") {
				t.Errorf("other arch: %+v, want refused naming mamba", m)
			}
		}
	}
}

// TestResumeAfterCut: the CDN cuts the connection half-way through the
// weights; the pull resumes with a Range request from where the cut left
// the partial file, and the result is checked byte for byte.
func TestResumeAfterCut(t *testing.T) {
	repo := bigRepo("loupe-test/big", 3<<20)
	h := fakehub.New(repo)
	defer h.Close()
	h.Set(func(h *fakehub.Hub) { h.CutAfter, h.CutTimes = 1<<20, 2 })
	c := testClient(h)
	newCache(t, c)
	dir, err := c.Pull(context.Background(), "loupe-test/big", "main", nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "model.safetensors"))
	if sha256Hex(got) != sha256Hex(repo.Files[1].Data) {
		t.Fatal("resumed file differs")
	}
	var ranges []string
	for _, l := range h.Log() {
		if strings.HasPrefix(l, "GET /cdn/") {
			ranges = append(ranges, strings.Fields(l)[2])
		}
	}
	want := []string{"Range=", "Range=bytes=1048576-", "Range=bytes=2097152-"}
	if strings.Join(ranges, " ") != strings.Join(want, " ") {
		t.Errorf("CDN requests %v, want %v", ranges, want)
	}
	for _, name := range []string{"pytorch_model.bin", "onnx"} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s downloaded: Loupe does not need it", name)
		}
	}
}

// TestCancelKeepsPartial: cancelling mid-file returns promptly with
// context.Canceled, keeps blobs/<sha256>.incomplete, and the next pull
// resumes from its end.
func TestCancelKeepsPartial(t *testing.T) {
	repo := bigRepo("loupe-test/big", 2<<20)
	h := fakehub.New(repo)
	defer h.Close()
	const sent = 300 << 10
	h.Set(func(h *fakehub.Hub) { h.Stall, h.StallAfter = true, sent })
	c := testClient(h)
	cache := newCache(t, c)
	part := Repo{Cache: cache, ID: "loupe-test/big"}.BlobPath(sha256Hex(repo.Files[1].Data)) + ".incomplete"
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // cancel once the stalled download has written what it got
		defer wg.Done()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if fileSize(part) == sent {
				break
			}
		}
		cancel()
	}()
	start := time.Now()
	_, err := c.Pull(ctx, "loupe-test/big", "main", nil)
	wg.Wait()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("cancel took %v", d)
	}
	if n := fileSize(part); n != sent {
		t.Fatalf("partial file has %d bytes, want %d", n, sent)
	}
	h.Set(func(h *fakehub.Hub) { h.Stall = false })
	if _, err := c.Pull(context.Background(), "loupe-test/big", "main", nil); err != nil {
		t.Fatal(err)
	}
	log := h.Log()
	if l := log[len(log)-1]; !strings.Contains(l, "Range=bytes=307200-") {
		t.Errorf("last request %q, want a Range from byte %d", l, sent)
	}
}

// TestStallIsAnError: a server that sends headers and then nothing ends
// in an error after StallTimeout per try, not a hang.
func TestStallIsAnError(t *testing.T) {
	h := fakehub.New(bigRepo("loupe-test/big", 1<<20))
	defer h.Close()
	h.Set(func(h *fakehub.Hub) { h.Stall = true })
	c := testClient(h)
	newCache(t, c)
	c.StallTimeout, c.Retries = 200*time.Millisecond, 1
	start := time.Now()
	_, err := c.Pull(context.Background(), "loupe-test/big", "main", nil)
	if err == nil || !strings.Contains(err.Error(), "no data for") {
		t.Fatalf("err %v, want a stall error", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

// TestChecksumFailure: wrong bytes of the right size are refused (sha256
// for an LFS file, git sha1 for a small one), nothing enters blobs/ or
// the snapshot, and no partial file is kept.
func TestChecksumFailure(t *testing.T) {
	for _, name := range []string{"model.safetensors", "config.json"} {
		t.Run(name, func(t *testing.T) {
			repo := bigRepo("loupe-test/big", 1<<20)
			repo.Corrupt[name] = true
			h := fakehub.New(repo)
			defer h.Close()
			c := testClient(h)
			cache := newCache(t, c)
			_, err := c.Pull(context.Background(), "loupe-test/big", "main", nil)
			if !errors.Is(err, ErrChecksum) {
				t.Fatalf("err %v, want ErrChecksum", err)
			}
			blobs, _ := os.ReadDir(filepath.Join(cache, "models--loupe-test--big", "blobs"))
			for _, b := range blobs {
				for _, f := range repo.Files {
					if f.Name == name && (b.Name() == sha256Hex(f.Data) || strings.HasPrefix(b.Name(), gitBlobSHA1(f.Data))) {
						t.Errorf("bad %s kept as %s", name, b.Name())
					}
				}
			}
			if _, err := os.Lstat(filepath.Join(cache, "models--loupe-test--big", "snapshots", commit, name)); err == nil {
				t.Errorf("bad %s linked into the snapshot", name)
			}
		})
	}
}

// TestGatedRepo: without a token the Hub's 401 GatedRepo becomes ErrGated
// telling the user to accept the licence and set HF_TOKEN; with the
// token (sent as Authorization: Bearer) the pull succeeds.
func TestGatedRepo(t *testing.T) {
	repo := bigRepo("meta-llama/Gated-1B", 1<<16)
	repo.Gated, repo.Token = true, "hf_secret"
	h := fakehub.New(repo)
	defer h.Close()
	c := testClient(h)
	newCache(t, c)
	_, err := c.Pull(context.Background(), "meta-llama/Gated-1B", "main", nil)
	if !errors.Is(err, ErrGated) || !strings.Contains(err.Error(), "HF_TOKEN") || !strings.Contains(err.Error(), h.URL+"/meta-llama/Gated-1B") {
		t.Fatalf("err %v, want ErrGated naming HF_TOKEN and the model page", err)
	}
	c.Token = "hf_wrong"
	if _, err := c.Pull(context.Background(), "meta-llama/Gated-1B", "main", nil); !errors.Is(err, ErrGated) {
		t.Fatalf("wrong token: err %v, want ErrGated", err)
	}
	t.Setenv("HF_TOKEN", "hf_secret")
	c.Token = NewClient().Token
	if _, err := c.Pull(context.Background(), "meta-llama/Gated-1B", "main", nil); err != nil {
		t.Fatal(err)
	}
	if l := h.Log()[len(h.Log())-1]; !strings.Contains(l, "Auth=Bearer hf_secret") {
		t.Errorf("last request %q carries no token", l)
	}
}

// TestOffline: a closed port is a prompt ErrOffline with advice; with
// HF_HUB_OFFLINE a cached model is found and a missing one refused
// without any request.
func TestOffline(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c := NewClient()
	c.Endpoint = "http://" + addr
	newCache(t, c)
	start := time.Now()
	_, err = c.Pull(context.Background(), "Qwen/Qwen2.5-0.5B", "main", nil)
	if !errors.Is(err, ErrOffline) || !strings.Contains(err.Error(), "HF_ENDPOINT") {
		t.Fatalf("err %v, want ErrOffline with advice", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}

	h := fakehub.New(bigRepo("loupe-test/big", 1<<16))
	defer h.Close()
	c2 := testClient(h)
	c2.Cache = c.Cache
	dir, err := c2.Pull(context.Background(), "loupe-test/big", "main", nil)
	if err != nil {
		t.Fatal(err)
	}
	c.Offline = true
	if got, err := c.Pull(context.Background(), "loupe-test/big", "main", nil); err != nil || got != dir {
		t.Errorf("offline pull of a cached model: %q, %v; want %q", got, err, dir)
	}
	if _, err := c.Pull(context.Background(), "loupe-test/absent", "main", nil); !errors.Is(err, ErrOffline) {
		t.Errorf("offline pull of a missing model: %v, want ErrOffline", err)
	}
}

// TestNotFoundAndBadNames: unknown repos, revisions and malformed ids.
func TestNotFoundAndBadNames(t *testing.T) {
	h := fakehub.New(bigRepo("loupe-test/big", 1<<16))
	defer h.Close()
	c := testClient(h)
	newCache(t, c)
	for _, tc := range []struct{ repo, rev string }{{"loupe-test/nope", "main"}, {"loupe-test/big", "v9"}} {
		if _, err := c.Pull(context.Background(), tc.repo, tc.rev, nil); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s@%s: err %v, want ErrNotFound", tc.repo, tc.rev, err)
		}
	}
	for _, bad := range []string{"", "qwen", "a/b/c", "../x", "a--b/c", "/etc", "a/..", "a b/c"} {
		if _, err := c.Pull(context.Background(), bad, "main", nil); err == nil || !strings.Contains(err.Error(), "ORG/NAME") {
			t.Errorf("%q: err %v, want a bad-id error", bad, err)
		}
	}
	noWeights := &fakehub.Repo{ID: "org/gguf-only", Commit: commit, Files: []fakehub.File{
		{Name: "config.json", Data: []byte("{}")}, {Name: "m-Q4_K_M.gguf", Data: []byte("GGUF"), LFS: true}}}
	h2 := fakehub.New(noWeights)
	defer h2.Close()
	c.Endpoint = h2.URL
	if _, err := c.Pull(context.Background(), "org/gguf-only", "main", nil); !errors.Is(err, ErrNoModel) || !strings.Contains(err.Error(), ".gguf") {
		t.Errorf("gguf-only repo: err %v, want ErrNoModel naming .gguf", err)
	}
}

// TestMirrorWithoutAPI: a mirror that serves files but not /api/models is
// pulled from HEADs of the usual names and the index's shards; one whose
// API has no commit and whose files are found by branch name only, by
// X-Repo-Commit and the branch.
func TestMirrorWithoutAPI(t *testing.T) {
	shard := func(n byte) []byte { return []byte(strings.Repeat(string(rune('a'+n)), 5000)) }
	repo := &fakehub.Repo{ID: "org/sharded", Commit: commit, Files: []fakehub.File{
		{Name: "config.json", Data: []byte(`{}`)},
		{Name: "model.safetensors.index.json", Data: []byte(`{"weight_map":{"a":"model-00001-of-00002.safetensors","b":"model-00002-of-00002.safetensors"}}`)},
		{Name: "model-00001-of-00002.safetensors", Data: shard(0), LFS: true},
		{Name: "model-00002-of-00002.safetensors", Data: shard(1), LFS: true},
	}}
	h := fakehub.New(repo)
	defer h.Close()
	for _, mirror := range []func(h *fakehub.Hub){
		func(h *fakehub.Hub) { h.NoAPI, h.BranchOnly = true, false },
		func(h *fakehub.Hub) { h.NoAPI, h.BranchOnly = false, true },
		func(h *fakehub.Hub) { h.NoAPI, h.BranchOnly = true, true },
	} {
		h.Set(mirror)
		c := testClient(h)
		newCache(t, c)
		dir, err := c.Pull(context.Background(), "org/sharded", "main", nil)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(dir) != commit {
			t.Errorf("snapshot %s, want it named by the commit", dir)
		}
		for _, f := range repo.Files {
			if got, err := os.ReadFile(filepath.Join(dir, f.Name)); err != nil || string(got) != string(f.Data) {
				t.Errorf("%s: %v", f.Name, err)
			}
		}
	}
}

// TestProgressReportsSpeed: reports carry bytes, a speed and a time left.
func TestProgressReportsSpeed(t *testing.T) {
	m := newMeter(nil, 1)
	var got []Progress
	m.progress = func(p Progress) { got = append(got, p) }
	m.total = 10 << 20
	start := time.Now()
	for time.Since(start) < 450*time.Millisecond {
		m.received(64 << 10)
		time.Sleep(10 * time.Millisecond)
	}
	last := got[len(got)-1]
	if last.Done <= 0 || last.Done > m.done || last.BytesPerSec <= 0 || last.Remaining <= 0 {
		t.Fatalf("last report %+v, want a speed and a time left", last)
	}
	// 64 KiB per ~10 ms is at most 6.4 MB/s; sleeping makes it less.
	if last.BytesPerSec > 6.6e6 {
		t.Errorf("speed %.0f B/s above what was fed", last.BytesPerSec)
	}
	if want := time.Duration(float64(m.total-last.Done) / last.BytesPerSec * 1e9); last.Remaining-want > time.Millisecond || want-last.Remaining > time.Millisecond {
		t.Errorf("remaining %v, want %v", last.Remaining, want)
	}
}

// TestPullWaitsForOtherDownload: while another program holds the blob's
// lock (huggingface_hub's .locks/ path), Pull waits and says so; when
// that program has put the whole blob in place and let go, Pull links it
// without downloading it again.
func TestPullWaitsForOtherDownload(t *testing.T) {
	repo := bigRepo("loupe-test/big", 1<<20)
	h := fakehub.New(repo)
	defer h.Close()
	c := testClient(h)
	cache := newCache(t, c)
	r := Repo{Cache: cache, ID: "loupe-test/big"}
	sha := sha256Hex(repo.Files[1].Data)
	lock := filepath.Join(cache, ".locks", "models--loupe-test--big", sha+".lock")
	if err := os.MkdirAll(filepath.Dir(lock), 0o755); err != nil {
		t.Fatal(err)
	}
	other, err := os.OpenFile(lock, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if held, err := tryLock(other); err != nil || held {
		t.Fatalf("could not take the lock first: held %v, %v", held, err)
	}
	waiting := make(chan struct{})
	var once sync.Once
	done := make(chan error, 1)
	go func() {
		_, err := c.Pull(context.Background(), "loupe-test/big", "main", func(p Progress) {
			if strings.Contains(p.Note, "another program") {
				once.Do(func() { close(waiting) })
			}
		})
		done <- err
	}()
	select {
	case <-waiting:
	case err := <-done:
		t.Fatalf("Pull ended while the blob was locked: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("Pull did not report that it waits")
	}
	// The other program finishes the blob, then lets go.
	if err := os.MkdirAll(filepath.Join(r.Dir(), "blobs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.BlobPath(sha), repo.Files[1].Data, 0o644); err != nil {
		t.Fatal(err)
	}
	unlockFile(other)
	other.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, l := range h.Log() {
		if strings.HasPrefix(l, "GET /cdn/") {
			t.Errorf("downloaded although the other program had put the blob in place: %s", l)
		}
	}
}

// TestPullRefusesWithoutSpace: a pull that cannot fit on the disk stops
// before downloading anything, with a message giving both sizes.
func TestPullRefusesWithoutSpace(t *testing.T) {
	repo := bigRepo("loupe-test/big", 3<<20)
	h := fakehub.New(repo)
	defer h.Close()
	c := testClient(h)
	newCache(t, c)
	defer func(f func(string) (int64, bool)) { freeBytes = f }(freeBytes)
	freeBytes = func(string) (int64, bool) { return 100_000_000, true }
	_, err := c.Pull(context.Background(), "loupe-test/big", "main", nil)
	if !errors.Is(err, ErrNoSpace) || !strings.Contains(err.Error(), "100 MB is free") {
		t.Fatalf("err = %v, want ErrNoSpace naming the free space", err)
	}
	for _, l := range h.Log() {
		if strings.HasPrefix(l, "GET /cdn/") {
			t.Errorf("downloaded without the space for it: %s", l)
		}
	}
	freeBytes = func(string) (int64, bool) { return 1 << 40, true }
	if _, err := c.Pull(context.Background(), "loupe-test/big", "main", nil); err != nil {
		t.Fatalf("with space: %v", err)
	}
}
