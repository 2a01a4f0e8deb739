//go:build unix

package experiment

import "syscall"

// diskFreeBytes is the space free to this user on the disk holding dir.
func diskFreeBytes(dir string) int64 {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return -1
	}
	return int64(st.Bavail) * int64(st.Bsize)
}
