package app

import (
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"fyne.io/fyne/v2"

	"loupe/trace/stats"
)

// uiLatency measures how long the window's event loop takes to run a
// callback posted from outside it while a generation runs: every 20 ms a
// probe goroutine posts one with fyne.Do and the callback records the delay.
// It is what a click or a redraw waits for (--ui-latency).
type uiLatency struct {
	mu      sync.Mutex
	samples []time.Duration // delays of callbacks that ran during a generation
	stop    chan struct{}
}

// startUILatency starts the probe; stopUILatency prints its figures.
func (fc *host) startUILatency() {
	u := fc.ui
	p := &uiLatency{stop: make(chan struct{})}
	u.latency = p
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-p.stop:
				return
			case sent := <-tick.C:
				fyne.Do(func() {
					if u.st.Running {
						p.mu.Lock()
						p.samples = append(p.samples, time.Since(sent))
						if len(p.samples)%500 == 0 { // a running figure for long prefills
							fmt.Fprintln(os.Stdout, "loupe: "+latencyLine(p.samples))
						}
						p.mu.Unlock()
					}
				})
			}
		}
	}()
}

func (fc *host) stopUILatency() {
	u := fc.ui
	p := u.latency
	if p == nil {
		return
	}
	close(p.stop)
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintln(os.Stdout, "loupe: "+latencyLine(p.samples))
}

// latencyLine summarises the delays: count, median, 95th percentile, max.
func latencyLine(d []time.Duration) string {
	if len(d) == 0 {
		return "ui latency: no samples during a generation"
	}
	ms := make([]float64, len(d))
	for i, x := range d {
		ms[i] = float64(x.Microseconds()) / 1000
	}
	slices.Sort(ms)
	p95 := ms[min(len(ms)-1, int(0.95*float64(len(ms))))] // the nearest rank
	return fmt.Sprintf("ui latency during generation: %d samples, median %.1f ms, p95 %.1f ms, max %.1f ms",
		len(ms), stats.Median(ms), p95, ms[len(ms)-1])
}
