package perf

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// machineBusySeconds is the CPU time all CPUs have spent busy since boot,
// from the first line of /proc/stat (user nice system idle iowait irq
// softirq steal …, in ticks of 1/100 s): everything but idle and iowait.
// Steal counts as busy: on a VM it is time the host gave our CPUs away.
func machineBusySeconds() (float64, bool) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return 0, false
	}
	fields := strings.Fields(sc.Text())
	if len(fields) < 9 || fields[0] != "cpu" {
		return 0, false
	}
	var ticks float64
	for i, s := range fields[1:9] { // user … steal; guest time is inside user
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, false
		}
		if i != 3 && i != 4 { // idle, iowait
			ticks += v
		}
	}
	return ticks / 100, true
}
