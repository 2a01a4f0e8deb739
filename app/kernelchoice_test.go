package app

import (
	"testing"
	"time"

	"loupe/engine/perf"
	"loupe/kernels"
)

// TestGenerationCarriesTheMenusKernels: a generation passes the kernel
// menu's choice with its run (GenerateOptions.Kernels), whatever another
// run left in use, and the run's settings name its level.
func TestGenerationCarriesTheMenusKernels(t *testing.T) {
	defer kernels.Use(kernels.Current())
	h := newHarness(t, Options{Kernels: "exact"})
	g, _ := kernels.ChoiceOf("generic")
	kernels.Use(g) // what a timing chapter or an experiment might leave
	h.generate("My cat", 2)
	exact, _ := kernels.ChoiceOf("exact")
	h.fake.mu.Lock()
	got := h.fake.last.Kernels
	h.fake.mu.Unlock()
	if got != exact || h.u.st.LastRun.Settings.Kernels != exact.Level().String() {
		t.Errorf("the run carried %v and reports %q; the menu says %v", got, h.u.st.LastRun.Settings.Kernels, exact)
	}
}

// TestModelOutlivesTheProbe: a model opened while the bandwidth probe
// runs (it may be reading the old model's weights) closes the old one
// only once the probe has ended.
func TestModelOutlivesTheProbe(t *testing.T) {
	fakeCeiling(t)
	h := newHarness(t, Options{}) // measureBandwidth nil: no probe at start
	old := h.fake
	started, release := make(chan bool, 1), make(chan struct{})
	var closedDuring bool
	measureBandwidth = func(perf.WeightHolder) (perf.Bandwidth, error) {
		started <- true
		<-release
		old.mu.Lock()
		closedDuring = old.closed
		old.mu.Unlock()
		return perf.Bandwidth{BestGBs: 20, Threads: 2, When: time.Now()}, nil
	}
	defer func() { measureBandwidth = nil }()
	onUI(h.u.host.remeasure)
	<-started
	swapped := make(chan struct{})
	go func() {
		onUI(func() { h.u.loaded("/models/other", newFake(), nil) })
		close(swapped)
	}()
	select {
	case <-swapped:
		t.Error("the model was swapped while the probe ran")
	case <-time.After(200 * time.Millisecond): // the swap waits for the probe
	}
	close(release)
	<-swapped
	old.mu.Lock()
	defer old.mu.Unlock()
	if closedDuring || !old.closed {
		t.Errorf("old model closed during the probe %v, after it %v", closedDuring, old.closed)
	}
}
