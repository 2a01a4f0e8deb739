package hub

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Progress is reported while Pull downloads.
type Progress struct {
	File             string        // the file being downloaded
	FileIndex, Files int           // 1-based index of File among Files
	Done, Total      int64         // bytes of the whole pull, already cached ones included
	BytesPerSec      float64       // recent download speed (0 until measured)
	Remaining        time.Duration // time left at that speed; -1 unknown
	Finished         bool          // the last report: every file is in place
	Note             string        // "" or what the pull waits for (another program's download of the file)
}

// Pull downloads the files Loupe needs from repo at revision rev ("" is
// "main") into the cache and returns the snapshot folder. Files already in
// the cache are not fetched again; a partial file (blobs/<etag>.incomplete,
// left by a cut connection or a cancel) is resumed with a Range request.
// Every file's size, and its sha256 (LFS) or git sha1, is checked against
// the Hub's metadata before it enters the cache. Cancel ctx to stop: the
// partial file stays for the next Pull.
func (c *Client) Pull(ctx context.Context, repo, rev string, progress func(Progress)) (string, error) {
	if rev == "" {
		rev = "main"
	}
	if err := CheckRepoID(repo); err != nil {
		return "", err
	}
	r := Repo{Cache: c.Cache, ID: repo}
	if c.Offline {
		if dir, ok := r.Resolve(rev); ok {
			return dir, nil
		}
		return "", fmt.Errorf("%w: HF_HUB_OFFLINE is set and %s@%s is not in %s", ErrOffline, repo, rev, c.Cache)
	}
	info, err := c.Info(ctx, repo, rev)
	if err != nil {
		return "", err
	}
	files := selectFiles(info.Files)
	if !hasWeights(files) {
		return "", fmt.Errorf("%w: %s has %s, no .safetensors weights", ErrNoModel, repo, otherFormats(info.Files))
	}
	commit := info.Commit
	if !commitPattern.MatchString(commit) { // an API without "sha": ask a file's X-Repo-Commit
		if m, err := c.head(ctx, repo, rev, files[0].Name); err == nil {
			commit = m.Commit
		}
	}
	if !commitPattern.MatchString(commit) {
		return "", fmt.Errorf("%s@%s: the Hub sent no commit hash (%q)", repo, rev, commit)
	}
	plan, err := c.plan(ctx, r, rev, commit, files)
	if err != nil {
		return "", err
	}
	if err := c.fetchAll(ctx, r, commit, plan, progress); err != nil {
		return "", err
	}
	if err := r.WriteRef(rev, commit); err != nil {
		return "", err
	}
	return r.SnapshotDir(commit), nil
}

// planned is one file with what HEAD said about it.
type planned struct {
	RemoteFile
	meta fileMeta
}

// plan asks for every file's ETag, size and download location (HEAD on
// the resolve URL, at the commit so all files are of one revision, as
// huggingface_hub's snapshot_download does; a mirror that only knows the
// branch name is asked by that).
func (c *Client) plan(ctx context.Context, r Repo, rev, commit string, files []RemoteFile) ([]planned, error) {
	var out []planned
	for _, f := range files {
		m, err := c.head(ctx, r.ID, commit, f.Name)
		if errors.Is(err, ErrNotFound) && rev != commit {
			m, err = c.head(ctx, r.ID, rev, f.Name)
		}
		if err != nil {
			return nil, err
		}
		if m.Commit != "" && m.Commit != commit {
			return nil, fmt.Errorf("%s: %s is at commit %s, the file list at %s (the repo changed during the download? try again)",
				r.ID, f.Name, m.Commit, commit)
		}
		if f.Size >= 0 && m.Size >= 0 && f.Size != m.Size {
			return nil, fmt.Errorf("%s: %s is %d bytes by the file list, %d by its headers", r.ID, f.Name, f.Size, m.Size)
		}
		if m.Size < 0 {
			m.Size = f.Size
		}
		if !usableETag(m.ETag) { // fall back on the file list's ids, as names in blobs/
			m.ETag = f.SHA256
			if m.ETag == "" {
				m.ETag = f.BlobID
			}
			if !usableETag(m.ETag) {
				return nil, fmt.Errorf("%s: %s: the server sent no usable ETag, so the file cannot be cached", r.ID, f.Name)
			}
		}
		out = append(out, planned{f, m})
	}
	return out, nil
}

// fetchAll downloads what is not cached yet and links the snapshot.
func (c *Client) fetchAll(ctx context.Context, r Repo, commit string, plan []planned, progress func(Progress)) error {
	if err := os.MkdirAll(filepath.Join(r.Dir(), "blobs"), 0o755); err != nil {
		return err
	}
	meter := newMeter(progress, len(plan))
	for _, p := range plan {
		meter.total += max(p.meta.Size, 0)
		meter.counted[p.meta.ETag] = cachedBytes(r, p.meta)
		meter.done += meter.counted[p.meta.ETag]
	}
	if err := checkSpace(filepath.Join(r.Dir(), "blobs"), meter.total-meter.done); err != nil {
		return fmt.Errorf("%s: %w", r.ID, err)
	}
	for i, p := range plan {
		meter.file, meter.index = p.Name, i+1
		meter.report(true)
		if err := c.fetchLocked(ctx, r, commit, p, meter); err != nil {
			return fmt.Errorf("%s: %s: %w", r.ID, p.Name, err)
		}
	}
	meter.finished = true
	meter.report(true)
	return nil
}

// fetchLocked brings one file into the cache under the blob's lock: when
// another process (a second Loupe, huggingface_hub) is downloading the
// same blob, it waits and then finds the blob complete.
func (c *Client) fetchLocked(ctx context.Context, r Repo, commit string, p planned, meter *meter) error {
	unlock, err := r.lockBlob(ctx, p.meta.ETag, func() {
		meter.note = "waiting: another program is downloading this file"
		meter.report(true)
	})
	if err != nil {
		return err
	}
	defer unlock()
	meter.note = ""
	blob := r.BlobPath(p.meta.ETag)
	if !blobComplete(blob, p.meta.Size) {
		meter.done += cachedBytes(r, p.meta) - meter.counted[p.meta.ETag] // what the other program wrote meanwhile
		if err := c.fetchBlob(ctx, r, p, blob, meter); err != nil {
			return err
		}
	} else {
		meter.done += max(p.meta.Size, 0) - meter.counted[p.meta.ETag]
	}
	return r.linkSnapshot(commit, p.Name, p.meta.ETag)
}

func blobComplete(path string, size int64) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && (size < 0 || st.Size() == size)
}

// cachedBytes counts a file's bytes already on disk, whole or partial.
func cachedBytes(r Repo, m fileMeta) int64 {
	blob := r.BlobPath(m.ETag)
	if blobComplete(blob, m.Size) {
		return max(m.Size, 0)
	}
	if st, err := os.Stat(blob + ".incomplete"); err == nil && (m.Size < 0 || st.Size() <= m.Size) {
		return st.Size()
	}
	return 0
}

// fetchBlob downloads one file into blob+".incomplete", resuming after
// cut connections (Retries in a row without progress), checks it and
// renames it into place.
func (c *Client) fetchBlob(ctx context.Context, r Repo, p planned, blob string, meter *meter) error {
	part := blob + ".incomplete"
	wait := c.RetryWait
	for fails := 0; ; {
		before := fileSize(part)
		err := c.fetchOnce(ctx, r, p, part, meter)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !transient(err) {
			return err
		}
		if fileSize(part) > before {
			fails, wait = 0, c.RetryWait
		}
		if fails++; fails > c.Retries {
			return fmt.Errorf("gave up after %d tries in a row without progress (%d of %d bytes kept for next time): %w",
				fails, fileSize(part), p.meta.Size, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 8*time.Second)
	}
	if err := verify(part, p); err != nil {
		os.Remove(part)
		meter.done -= max(p.meta.Size, 0)
		return err
	}
	return os.Rename(part, blob)
}

// errTransient marks failures worth a retry: a cut or stalled connection,
// a 5xx answer.
type errTransient struct{ error }

func (e errTransient) Unwrap() error { return e.error }

func transient(err error) bool {
	var t errTransient
	return errors.As(err, &t)
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// fetchOnce makes one GET, from where the partial file ends, and appends
// the body to it.
func (c *Client) fetchOnce(ctx context.Context, r Repo, p planned, part string, meter *meter) error {
	f, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	have, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	size := p.meta.Size
	if size >= 0 && have > size { // not this file's bytes: start again
		meter.done -= have
		if err := f.Truncate(0); err != nil {
			return err
		}
		have, _ = f.Seek(0, io.SeekStart)
	}
	if size >= 0 && have == size {
		return nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	req, err := c.newRequest(ctx, http.MethodGet, p.meta.Location)
	if err != nil {
		return err
	}
	req.Header.Set("Accept-Encoding", "identity")
	if have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return errTransient{c.netError(err)} // a dropped network may come back
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		if start := contentRangeStart(resp.Header.Get("Content-Range")); start != have {
			return errTransient{fmt.Errorf("asked for bytes from %d, got from %d", have, start)}
		}
	case resp.StatusCode == http.StatusOK:
		if have > 0 { // the server ignored the Range: take the whole file
			meter.done -= have
			if err := f.Truncate(0); err != nil {
				return err
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return err
			}
		}
	case resp.StatusCode >= 500:
		return errTransient{fmt.Errorf("HTTP %s", resp.Status)}
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable:
		meter.done -= have
		f.Truncate(0)
		return errTransient{fmt.Errorf("the server refused to resume at byte %d", have)}
	default:
		return c.statusError(resp, r.ID, p.Name)
	}
	body := &watchdog{r: resp.Body, timeout: c.StallTimeout, cancel: cancel}
	body.arm()
	defer body.stop()
	_, err = io.Copy(f, meter.counting(body))
	if err != nil {
		if ctx.Err() != nil && context.Cause(ctx) != errStalled {
			return context.Cause(ctx)
		}
		if context.Cause(ctx) == errStalled {
			err = fmt.Errorf("no data for %v: %w", c.StallTimeout, errStalled)
		}
		return errTransient{fmt.Errorf("connection cut: %w", err)}
	}
	if got := fileSize(part); size >= 0 && got != size {
		return errTransient{fmt.Errorf("connection cut at byte %d of %d", got, size)}
	}
	return nil
}

// contentRangeStart reads the first byte of "bytes START-END/SIZE".
func contentRangeStart(h string) int64 {
	s, ok := strings.CutPrefix(strings.TrimSpace(h), "bytes ")
	if !ok {
		return -1
	}
	dash := strings.IndexByte(s, '-')
	if dash < 0 {
		return -1
	}
	n, err := strconv.ParseInt(s[:dash], 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// verify checks a finished file against the Hub's metadata: its size, its
// sha256 when it is an LFS object (the API's lfs.sha256, or its ETag,
// which for LFS objects is the sha256), else its git blob sha1 (the API's
// blobId, or its ETag).
func verify(path string, p planned) error {
	got := fileSize(path)
	if p.meta.Size >= 0 && got != p.meta.Size {
		return fmt.Errorf("%w: %d bytes, want %d", ErrChecksum, got, p.meta.Size)
	}
	wantSHA256 := p.SHA256
	if wantSHA256 == "" && isHex(p.meta.ETag, 64) {
		wantSHA256 = p.meta.ETag
	}
	if wantSHA256 != "" {
		sum, err := hashFile(path, sha256.New(), "")
		if err != nil {
			return err
		}
		if sum != strings.ToLower(wantSHA256) {
			return fmt.Errorf("%w: sha256 %s, want %s", ErrChecksum, sum, wantSHA256)
		}
		return nil
	}
	wantSHA1 := p.BlobID
	if wantSHA1 == "" && isHex(p.meta.ETag, 40) {
		wantSHA1 = p.meta.ETag
	}
	if wantSHA1 != "" {
		sum, err := hashFile(path, sha1.New(), "blob "+strconv.FormatInt(got, 10)+"\x00")
		if err != nil {
			return err
		}
		if sum != strings.ToLower(wantSHA1) {
			return fmt.Errorf("%w: git sha1 %s, want %s", ErrChecksum, sum, wantSHA1)
		}
	}
	return nil
}

// hashFile hashes prefix then the file (git hashes "blob SIZE\0" first).
func hashFile(path string, h hash.Hash, prefix string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	io.WriteString(h, prefix)
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// errStalled is the cause when the watchdog ends a silent download.
var errStalled = errors.New("download stalled")

// watchdog cancels the request when no byte arrives for timeout.
type watchdog struct {
	r       io.Reader
	timeout time.Duration
	cancel  context.CancelCauseFunc
	t       *time.Timer
}

func (w *watchdog) arm() {
	if w.timeout > 0 {
		w.t = time.AfterFunc(w.timeout, func() { w.cancel(errStalled) })
	}
}

func (w *watchdog) stop() {
	if w.t != nil {
		w.t.Stop()
	}
}

func (w *watchdog) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if n > 0 && w.t != nil {
		w.t.Reset(w.timeout)
	}
	return n, err
}
