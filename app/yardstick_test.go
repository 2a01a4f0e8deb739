package app

import (
	"strings"
	"testing"
	"time"

	"loupe/engine/perf"
)

// weightyBackend is the fake with 64 MiB of weights a probe could read in
// place (never touched: the probe is faked too).
type weightyBackend struct {
	*fakeBackend
	pages [][]byte
}

func (w weightyBackend) WeightPages() [][]byte { return w.pages }

// TestDecodeSetAgainstTheModelsWeights: once a model large enough to be
// probed in place loads, its weights are probed and decode is set against
// that figure (as `loupe bench` does), not against the machine's higher
// cached one; a model loaded next starts from the machine's figure again
// and is set against its own probe, not the best of both models'.
func TestDecodeSetAgainstTheModelsWeights(t *testing.T) {
	now := time.Now()
	machine := perf.Bandwidth{BestGBs: 40, Threads: 2, When: now.Add(-time.Hour), Source: perf.SourceBuffer}
	probes := fakeCeiling(t, machine, machine, machine) // strong: start-up makes no probe of its own
	weights := []float64{33, 30}
	release := make(chan struct{}, 2)
	measureBandwidth = func(m perf.WeightHolder) (perf.Bandwidth, error) {
		<-release
		b := perf.Bandwidth{BestGBs: weights[0], Threads: 2, When: time.Now(), Source: perf.SourceWeights}
		if m == nil {
			b.BestGBs, b.Source = 1, perf.SourceBuffer
		}
		weights = weights[1:]
		*probes = append([]perf.Bandwidth{b}, *probes...)
		return b, nil
	}
	defer func() { measureBandwidth = nil }()
	load := func(string, func(float64, string)) (Backend, error) {
		return weightyBackend{newFake(), [][]byte{make([]byte, 64<<20)}}, nil
	}
	h := newHarnessWith(t, Options{}, load)
	waitFor(t, func() bool { return h.u.st.Measuring })
	if h.u.st.Yardstick() != 40 {
		t.Errorf("before the weights' probe decode is set against %v GB/s, want the machine's 40", h.u.st.Yardstick())
	}
	release <- struct{}{}
	waitFor(t, func() bool { return !h.u.st.Measuring })
	if v := h.u.st.View(); v.Bandwidth != 33 || v.Beside.BestGBs != 33 {
		t.Errorf("after the weights' probe: decode set against %v GB/s (beside %v), want 33", v.Bandwidth, v.Beside.BestGBs)
	}
	text := h.u.timing.Ceiling.Text
	if !strings.Contains(text, "Decode is set against 33.0 GB/s") || !strings.Contains(text, "40.0 GB/s") {
		t.Errorf("ceiling line %q: want the weights' 33 GB/s and the machine's 40", text)
	}

	onUI(func() { h.u.openModel("/models/other") })
	h.wait()
	if h.u.st.Yardstick() != 40 || h.u.st.Beside.BestGBs != 0 {
		t.Errorf("a new model kept the last one's probe: %v GB/s (beside %v)", h.u.st.Yardstick(), h.u.st.Beside.BestGBs)
	}
	waitFor(t, func() bool { return h.u.st.Measuring })
	release <- struct{}{}
	waitFor(t, func() bool { return !h.u.st.Measuring })
	if h.u.st.Yardstick() != 30 {
		t.Errorf("the second model is set against %v GB/s, want its own 30", h.u.st.Yardstick())
	}
}

// An experiment at another thread count sets decode against its probe of
// the weights even below the cached figure (a fresh buffer reads faster
// than the weights' pages); a buffer's probe counts no lower than the
// cache.
func TestProbedFigure(t *testing.T) {
	cached := perf.Bandwidth{BestGBs: 36.8, Source: perf.SourceBuffer}
	if got := probedFigure(perf.Bandwidth{BestGBs: 30.7, Source: perf.SourceWeights}, cached); got != 30.7 {
		t.Errorf("weights' probe: %v GB/s, want 30.7", got)
	}
	if got := probedFigure(perf.Bandwidth{BestGBs: 20, Source: perf.SourceBuffer}, cached); got != 36.8 {
		t.Errorf("a low buffer probe: %v GB/s, want the cached 36.8", got)
	}
}
