package hub

import (
	"context"
	"errors"
	"fmt"
	"loupe/format"
	"os"
	"path/filepath"
	"time"
)

// ErrNoSpace: the disk cannot hold what a pull still has to download.
var ErrNoSpace = errors.New("not enough free disk space")

// spaceMargin is kept free beyond the files themselves: a full disk
// breaks more than the download.
const spaceMargin = 250_000_000

// freeBytes is the space the user can still write under dir (tests
// replace it).
var freeBytes = diskFree

// checkSpace refuses a pull that cannot fit: need more bytes are still to
// come into dir. A file system that cannot say is not refused.
func checkSpace(dir string, need int64) error {
	free, ok := freeBytes(dir)
	if !ok || need <= 0 || free >= need+spaceMargin {
		return nil
	}
	return fmt.Errorf("%w: the download needs %s more, %s is free on %s (keeping %s spare)",
		ErrNoSpace, format.Bytes(float64(need)), format.Bytes(float64(free)), dir, format.Bytes(float64(spaceMargin)))
}

// lockPath is where huggingface_hub locks a blob while it downloads it:
// <cache>/.locks/models--ORG--NAME/<etag>.lock. Taking the same lock keeps
// Loupe, a second Loupe and huggingface_hub from writing one blob at once.
func (r Repo) lockPath(etag string) string {
	return filepath.Join(r.Cache, ".locks", RepoFolder(r.ID), etag+".lock")
}

// lockPoll is how often a held lock is tried again.
const lockPoll = 200 * time.Millisecond

// lockBlob takes the blob's lock, waiting (until ctx ends) while another
// process holds it; waiting is called once if it has to wait. The lock is
// an OS file lock (flock, LockFileEx), as huggingface_hub's filelock
// takes: it goes away with the process that held it, so a crash leaves
// no stale lock behind.
func (r Repo) lockBlob(ctx context.Context, etag string, waiting func()) (unlock func(), err error) {
	path := r.lockPath(etag)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	for told := false; ; {
		held, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if !held {
			return func() { unlockFile(f); f.Close() }, nil
		}
		if !told && waiting != nil {
			waiting()
			told = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}
