package perf

import (
	"fmt"
	"time"

	"loupe/engine/pool"
	"loupe/trace/stats"
)

// DefaultBufferBytes is the buffer the bandwidth probe streams: 1 GiB, ≫ any
// last-level cache (32 MiB on a Ryzen 9900X), so every pass comes from DRAM.
const DefaultBufferBytes = 1 << 30

// Bandwidth is one measurement of streaming read bandwidth.
type Bandwidth struct {
	CPU       string    `json:"cpu"`
	Threads   int       `json:"threads"` // workers that read (after the pool's cap)
	Pinned    int       `json:"pinned"`  // of which pinned to a core (the caller never is)
	Bytes     int64     `json:"bytes"`   // buffer size
	Passes    int       `json:"passes"`
	Loop      string    `json:"loop"` // read loop used: "avx2" or "generic"
	BestGBs   float64   `json:"best_gb_per_s"`
	MedianGBs float64   `json:"median_gb_per_s"`
	When      time.Time `json:"when"`
	// OthersBusy is how many cores other programs kept busy during the
	// probe (on a VM including the time the host gave our CPUs to other
	// guests); nil where the OS does not say. A probe beside a busy core
	// reads less than the machine can.
	OthersBusy *float64 `json:"others_busy_cores,omitempty"`
}

// loadedCores is the load beside a probe from which its figure is
// reported as taken under load.
const loadedCores = 0.25

// Loaded reports whether other programs kept more than a quarter of a core
// busy during the probe.
func (b Bandwidth) Loaded() bool { return b.OthersBusy != nil && *b.OthersBusy > loadedCores }

// ReadBandwidth streams a 1 GiB buffer passes times on threads workers and
// returns the best and median read bandwidth in GB/s (10⁹ bytes per second).
// threads ≤ 0 means pool.DefaultThreads(). It allocates and touches the
// buffer first, so page faults are not timed, and frees it before returning.
func ReadBandwidth(threads, passes int) (best, median float64) {
	b, err := MeasureBandwidth(threads, passes, DefaultBufferBytes)
	if err != nil {
		return 0, 0
	}
	return b.BestGBs, b.MedianGBs
}

// MeasureBandwidth is ReadBandwidth with the buffer size given and every
// detail of the measurement returned.
func MeasureBandwidth(threads, passes int, bytes int64) (Bandwidth, error) {
	if passes < 1 {
		return Bandwidth{}, fmt.Errorf("perf: bandwidth: passes %d: must be at least 1", passes)
	}
	if bytes < readBlock {
		return Bandwidth{}, fmt.Errorf("perf: bandwidth: buffer of %d bytes: must be at least %d", bytes, readBlock)
	}
	buf, free, err := allocBuffer(bytes / 8)
	if err != nil {
		return Bandwidth{}, fmt.Errorf("perf: bandwidth: allocating %d bytes: %w", bytes, err)
	}
	defer free()
	p := pool.New(threads)
	defer p.Close()
	load := startLoad() // from before the fill: /proc/stat counts in 10 ms ticks
	fill(p, buf)
	gbs := make([]float64, passes)
	for i := range gbs {
		sec := timeRead(p, buf)
		gbs[i] = float64(len(buf)*8) / sec / 1e9
	}
	return Bandwidth{
		CPU: CPUName(), Threads: p.Threads(), Pinned: p.Pinned(),
		Bytes: int64(len(buf)) * 8, Passes: passes, Loop: readLoopName(),
		BestGBs: best(gbs), MedianGBs: stats.Median(gbs), When: time.Now().UTC(),
		OthersBusy: load.othersBusy(),
	}, nil
}

// fill writes every word (the index, so sums are checkable), which faults
// every page in on the worker that will read it.
func fill(p *pool.Pool, buf []uint64) {
	p.For(len(buf)/readWords, func(_, lo, hi int) {
		for i := lo * readWords; i < hi*readWords; i++ {
			buf[i] = uint64(i)
		}
	})
}

// sumSink keeps the sums alive so no pass can be optimised away.
var sumSink [64]uint64

// timeRead reads buf once, each worker its contiguous band of whole blocks,
// and returns the seconds taken.
func timeRead(p *pool.Pool, buf []uint64) float64 {
	blocks := len(buf) / readWords
	start := time.Now()
	p.For(blocks, func(w, lo, hi int) {
		sumSink[w%len(sumSink)] += readSum(buf[lo*readWords : hi*readWords])
	})
	return time.Since(start).Seconds()
}
