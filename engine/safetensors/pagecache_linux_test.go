package safetensors

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestWriteDropsCache: a file at or over dropCachedFrom is written back and
// left out of the page cache (mincore on a fresh mapping finds no page
// resident), so the next run faults it in with 2 MiB pages.
func TestWriteDropsCache(t *testing.T) {
	defer func(old int64) { dropCachedFrom = old }(dropCachedFrom)
	dir := t.TempDir()
	data := make([]byte, 4<<20)
	for i := range data {
		data[i] = byte(i)
	}
	for _, drop := range []bool{false, true} {
		dropCachedFrom = int64(len(data)) * 2 // small file: kept
		if drop {
			dropCachedFrom = 1
		}
		path := filepath.Join(dir, fmt.Sprintf("m%v.safetensors", drop))
		if err := Write(path, []Tensor{{Name: "w", DType: "U8", Shape: []int{len(data)}, Data: data}}, nil); err != nil {
			t.Fatal(err)
		}
		if drop && !fadviseDrops(t, dir) {
			t.Skip("this filesystem keeps pages after POSIX_FADV_DONTNEED")
		}
		resident := residentPages(t, path)
		if drop && resident > 0 {
			t.Errorf("dropped file: %d pages still cached", resident)
		}
		if !drop && resident == 0 {
			t.Errorf("kept file: no page cached (the test cannot tell dropping apart)")
		}
	}
}

// residentPages maps path and counts its pages in the page cache.
func residentPages(t *testing.T, path string) int {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	b, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(b)
	vec := make([]byte, (len(b)+os.Getpagesize()-1)/os.Getpagesize())
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		t.Skipf("mincore: %v", errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// TestOpenAdvisesHugePages: the weights' mapping carries the kernel's
// huge-page advice ("hg" in smaps VmFlags).
func TestOpenAdvisesHugePages(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage"); err != nil {
		t.Skip("kernel without transparent huge pages")
	}
	path := filepath.Join(t.TempDir(), "m.safetensors")
	if err := Write(path, sampleTensors(), nil); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	flags, found := "", false
	for _, block := range strings.Split(string(smaps), "\n") {
		if strings.HasSuffix(block, path) {
			found = true
		} else if found && strings.HasPrefix(block, "VmFlags:") {
			flags = block
			break
		}
	}
	if !found {
		t.Fatalf("%s is not mapped", path)
	}
	if !strings.Contains(flags, " hg") {
		t.Errorf("mapping without MADV_HUGEPAGE: %q", flags)
	}
}

// fadviseDrops reports whether the filesystem of dir drops a synced file's
// pages on POSIX_FADV_DONTNEED (tmpfs, and some network and FUSE
// filesystems, do not), by trying it on a control file.
func fadviseDrops(t *testing.T, dir string) bool {
	path := filepath.Join(dir, "control")
	if err := os.WriteFile(path, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil || unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED) != nil {
		return false
	}
	return residentPages(t, path) == 0
}
