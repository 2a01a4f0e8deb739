package app

import (
	"fmt"

	"fyne.io/fyne/v2"
)

// measureBandwidth measures the machine's read bandwidth in GB/s; nil
// until a measuring function is wired in.
var measureBandwidth func() (float64, error)

// startBandwidth shows the cached figure, or measures it once in the
// background and caches it in the preferences.
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
		fyne.Do(func() {
			u.measuring = false
			if err == nil && bw > 0 {
				u.bandwidth = bw
				u.app.Preferences().SetFloat(prefBandwidth, bw)
			}
			u.timing.Display(u.timings, u.bandwidth, false)
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
