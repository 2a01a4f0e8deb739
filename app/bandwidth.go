package app

import (
	"fmt"
	"time"

	"loupe/engine/perf"
)

// host is what the window measures of the computer: memory bandwidth, the heap's limit, the UI's latency and the timing log.
type host struct {
	ui *UI
	machine
}

// The Timing panel sets decode against a read bandwidth. On a shared
// machine one probe can only come out low (another program reads memory
// or holds a core), so the machine's figure is the best of the probes the
// cache kept (engine/perf: each with its date and the load beside it),
// probed again while the engine is idle when the figure is missing, old,
// taken under load or from fewer than minProbes probes, and whenever the
// user asks (Re-measure). A model of 64 MiB or more is probed once it
// loads (after the first run where one is due at once): its own weights,
// the figure its decode is then set against (session.State.Yardstick).

// minProbes is how many probes the figure should rest on.
const minProbes = 3

// bandwidthCeiling returns the cached probes; measureBandwidth runs one
// probe beside the loaded model m (nil: none) and caches it: seconds, on
// every core, over the model's weights where they are 64 MiB or more
// (nothing allocated), else over a buffer of perf.ProbeBytes, 64–208 MiB
// (perf.MeasureBeside).
// Tests replace both; measureBandwidth nil means never probe.
var (
	bandwidthCeiling = func() (perf.Ceiling, bool) { return perf.BandwidthCeiling(0) }
	measureBandwidth = func(m perf.WeightHolder) (perf.Bandwidth, error) {
		b, err := perf.MeasureBeside(m, 0, 3)
		if err != nil {
			return b, err
		}
		perf.SaveBandwidth(b) // a cache that cannot be written only costs a new measurement
		return b, nil
	}
)

// startBandwidth shows the cached figure and makes a probe due if it is
// missing or weak (see above). The probe runs once the model loaded
// (beside a small one it streams up to 208 MiB of its own), and in a
// window started to run at once (--generate, the first launch's short
// run) after that run, so the run does not wait for it; a scripted window
// (--quit) does not probe at all.
func (fc *host) startBandwidth() {
	u := fc.ui
	c, ok := bandwidthCeiling()
	u.host.adoptCeiling(c, ok)
	u.host.showCeiling()
	if ok && !c.Stale(time.Now()) && !c.UnderLoad() && len(c.Probes) >= minProbes {
		return
	}
	if !u.opt.Quit {
		u.host.probeDue = true // beside the model once it loaded (modelLoaded)
	}
}

// modelLoaded forgets the last model's probes and makes a probe of the new
// one's weights due (none for a scripted window, or a model whose probe
// would read a buffer: the machine's figure stands for it).
func (fc *host) modelLoaded() {
	u := fc.ui
	u.st.ForgetBeside()
	u.host.loads++
	m, _ := u.backend.(perf.WeightHolder)
	if !u.opt.Quit && measureBandwidth != nil && perf.ReadsWeights(m) {
		u.host.probeDue = true
	}
}

// probeAfterRun runs the probe that start-up or a load deferred, once no
// run is under way.
func (fc *host) probeAfterRun() {
	u := fc.ui
	if u.host.probeDue && !u.st.Running && !u.st.Measuring {
		u.host.probeDue = false
		u.host.remeasure()
	}
}

// adoptCeiling makes c the figure of the panels.
func (fc *host) adoptCeiling(c perf.Ceiling, ok bool) {
	u := fc.ui
	if ok {
		u.st.AdoptCeiling(c)
	}
}

// remeasure runs one probe in the background, unless the engine is busy:
// generating, or a probe already running. A generation asked for
// meanwhile waits for it (postpone).
func (fc *host) remeasure() {
	u := fc.ui
	if measureBandwidth == nil || u.st.Measuring {
		return
	}
	if u.st.Running {
		u.controls.Status.SetText(tr("app.bw.busy", nil))
		return
	}
	u.st.Measuring = true
	u.host.showCeiling()
	m, _ := u.backend.(perf.WeightHolder)
	load := u.host.loads
	done := make(chan struct{})
	u.host.probing = done
	u.wg.Add(1)
	go func() {
		defer u.wg.Done()
		b, err := safeMeasure(m)
		close(done) // before u.do: waitProbe may hold the UI goroutine
		c, ok := bandwidthCeiling()
		u.do(func() {
			u.st.Measuring = false
			if err != nil {
				fmt.Println("loupe: bandwidth:", err)
			} else if load == u.host.loads {
				u.st.AdoptBeside(b) // not once another model loaded
			}
			u.host.adoptCeiling(c, ok)
			u.host.showCeiling()
			if u.generateAfter && !u.loading {
				u.generateAfter = false
				u.generate()
			}
			u.host.probeAfterRun() // one a load made due while this one ran
		})
	}()
}

// showCeiling redraws where the figure comes from in the Timing panel
// (the View's probes, its Re-measure button off while the engine runs).
func (fc *host) showCeiling() {
	u := fc.ui
	u.dirty = true
	u.refreshPanels()
}

func safeMeasure(m perf.WeightHolder) (b perf.Bandwidth, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("bandwidth measurement: %v", r)
		}
	}()
	return measureBandwidth(m)
}

// waitProbe waits for a running probe to end: it may be reading the
// weights of the model about to be closed.
func (u *UI) waitProbe() {
	if u.host.probing != nil {
		<-u.host.probing
		u.host.probing = nil
	}
}
