//go:build linux

package safetensors

import (
	"os"

	"golang.org/x/sys/unix"
)

// adviseHugePages asks the kernel to map the weights with 2 MiB pages.
// Decode streams every weight once per token, and with 4 KiB pages it
// pays a TLB miss every 4 KiB: on the 3.09 GB Qwen2.5-1.5B-shaped model, 1
// thread, decode read 34-35 GB/s with 4 KiB pages and 36.6-37.7 GB/s with
// the file's page cache in 2 MiB folios (a plain read of the same mapping:
// 42 GB/s). With the advice, pages read from disk on a fault come in as
// 2 MiB folios (readahead of PMD order); pages already cached keep the
// size they were cached with. A hint only: failure changes nothing.
func adviseHugePages(b []byte) { _ = unix.Madvise(b, unix.MADV_HUGEPAGE) }

// dropCached writes f back to disk and drops its clean pages from the page
// cache. Called on a file this package has just created: written pages
// stay cached as 4 KiB folios, so without this the next run would map the
// new model with small pages until the cache is evicted.
func dropCached(f *os.File) error {
	if err := f.Sync(); err != nil {
		return err
	}
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}
