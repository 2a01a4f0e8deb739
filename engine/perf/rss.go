package perf

import (
	"bufio"
	"bytes"
	"strconv"
)

// parseVmHWM finds the line "VmHWM:   123456 kB" and returns 123456.
func parseVmHWM(status []byte) (kb int64, ok bool) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		rest, found := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:"))
		if !found {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0, false
		}
		n, err := strconv.ParseInt(string(f[0]), 10, 64)
		return n, err == nil
	}
	return 0, false
}
