package app

import (
	"fmt"

	"loupe/engine/perf"
)

// measureBandwidth returns the machine's read bandwidth in GB/s: the
// engine's cached figure for this CPU, or a fresh measurement (seconds,
// 1 GiB). Tests set it to nil.
var measureBandwidth = func() (float64, error) {
	if b, ok := perf.CachedBandwidth(0); ok {
		return b.BestGBs, nil
	}
	b, err := perf.MeasureBandwidth(0, 3, perf.DefaultBufferBytes)
	if err != nil {
		return 0, err
	}
	perf.SaveBandwidth(b) // a cache that cannot be written only costs a new measurement
	return b.BestGBs, nil
}

// startBandwidth shows the figure cached in the preferences, or measures
// it once in the background and caches it.
func (u *UI) startBandwidth() {
	if bw := u.app.Preferences().Float(prefBandwidth); bw > 0 {
		u.bandwidth = bw
		return
	}
	if measureBandwidth == nil {
		return
	}
	u.measuring = true
	u.wg.Add(1)
	go func() {
		defer u.wg.Done()
		bw, err := safeMeasure()
		u.do(func() {
			u.measuring = false
			if err == nil && bw > 0 {
				u.bandwidth = bw
				u.app.Preferences().SetFloat(prefBandwidth, bw)
			}
			u.timing.Display(u.timings, u.bandwidth, false)
			if u.generateAfter && !u.loading {
				u.generateAfter = false
				u.generate()
			}
		})
	}()
}

func safeMeasure() (bw float64, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("bandwidth measurement: %v", r)
		}
	}()
	return measureBandwidth()
}
