package safetensors

import "os"

// MapFile maps a whole file read-only and shared, with the huge-page advice
// of this package's own files (Linux). Other weight formats (engine/gguf)
// share it. size must be > 0.
func MapFile(f *os.File, size int64) ([]byte, error) { return mapFile(f, size) }

// UnmapFile releases a mapping made by MapFile.
func UnmapFile(b []byte) error { return unmapFile(b) }

// DropCached writes a file just created back to disk and drops its pages
// from the page cache, so the next run maps it with 2 MiB pages.
func DropCached(f *os.File) error { return dropCached(f) }
