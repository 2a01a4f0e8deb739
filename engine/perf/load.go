package perf

import "time"

// loadMeter measures how many cores other programs keep busy over an
// interval: the machine's busy CPU time minus this process's, over the
// wall time.
type loadMeter struct {
	start      time.Time
	busy0, us0 float64
	ok         bool
}

// startLoad starts a loadMeter.
func startLoad() loadMeter {
	busy, ok := machineBusySeconds()
	return loadMeter{start: time.Now(), busy0: busy, us0: processCPUSeconds(), ok: ok}
}

// othersBusy is the cores busy with other work since startLoad, ≥ 0, or
// nil when the OS does not tell the machine's CPU time. /proc/stat counts
// in ticks of 10 ms, so intervals under a second are coarse.
func (l loadMeter) othersBusy() *float64 {
	busy, ok := machineBusySeconds()
	wall := time.Since(l.start).Seconds()
	if !ok || !l.ok || wall <= 0 {
		return nil
	}
	others := max(0, (busy-l.busy0)-(processCPUSeconds()-l.us0)) / wall
	return &others
}
