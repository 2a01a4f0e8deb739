//go:build !unix && !windows

package hub

import "os"

// Without OS file locks, a pull only guards against itself.
func tryLock(*os.File) (bool, error) { return false, nil }
func unlockFile(*os.File)            {}
func diskFree(string) (int64, bool)  { return 0, false }
