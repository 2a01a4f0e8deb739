package perf

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/klauspost/cpuid/v2"

	"loupe/engine/pool"
	"loupe/trace/stats"
)

// DefaultBufferBytes is the most the bandwidth probe allocates of its own:
// 208 MiB (218 MB; `loupe membw` then peaks at 253 MB with the program
// itself). The probe runs beside a loaded model, on laptops of
// 8 GB holding a 3 GB one: 1 GiB there was the difference between working
// and swapping. Beside a loaded model of 64 MiB or more the probe reads
// its weights instead (MeasureBeside).
const DefaultBufferBytes = 208 << 20

// minBufferBytes is the least the probe streams, whatever the cache says.
const minBufferBytes = 64 << 20

// ProbeBytes is the buffer the probe streams on this CPU: four times the
// last-level cache, so that every window comes from DRAM (32 MiB on a
// Ryzen 9900X: 128 MiB), at least 64 MiB and at most DefaultBufferBytes.
// A server CPU whose cache is larger than that (480 MiB on the
// development VM's host) cannot be measured past its cache within that
// memory (on that VM 208 MiB and 1 GiB buffers read the same; one thread
// read 64 MiB partly from the cache); a model's weights can be larger
// (MeasureBandwidthOver).
func ProbeBytes() int64 { return probeBytes(int64(cpuid.CPU.Cache.L3)) }

func probeBytes(l3 int64) int64 {
	b := min(max(4*l3, minBufferBytes), DefaultBufferBytes)
	return b &^ (2<<20 - 1) // whole 2 MiB pages
}

// Bandwidth is one measurement of streaming read bandwidth.
type Bandwidth struct {
	CPU       string  `json:"cpu"`
	Threads   int     `json:"threads"`         // workers that read (after the pool's cap)
	Pinned    int     `json:"pinned"`          // of which pinned to a core (the caller never is)
	Bytes     int64   `json:"bytes"`           // read a pass: the buffer, or the weights' windows
	Passes    int     `json:"passes"`          // over the bytes, each timed by windows (timePasses)
	Loop      string  `json:"loop"`            // read loop used: "avx512", "avx2" or "generic"
	BestGBs   float64 `json:"best_gb_per_s"`   // every window at its fastest (timePasses)
	MedianGBs float64 `json:"median_gb_per_s"` // the median pass: what the load left
	// BestWindowGBs is the fastest single window: the best-placed 32 MiB,
	// above what any whole pass reads (timePasses).
	BestWindowGBs float64   `json:"best_window_gb_per_s"`
	When          time.Time `json:"when"`
	// Source is what was read: SourceBuffer (one the probe allocated) or
	// SourceWeights (a loaded model's, MeasureBandwidthOver).
	Source string `json:"source,omitempty"`
	// OthersBusy is how many cores other programs kept busy during the
	// probe (on a VM including the time the host gave our CPUs to other
	// guests); nil where the OS does not say. A probe beside a busy core
	// reads less than the machine can.
	OthersBusy *float64 `json:"others_busy_cores,omitempty"`
}

// What a probe read (Bandwidth.Source).
const (
	SourceBuffer  = "buffer"
	SourceWeights = "model weights"
)

// loadedCores is the load beside a probe from which its figure is
// reported as taken under load.
const loadedCores = 0.25

// Loaded reports whether other programs kept more than a quarter of a core
// busy during the probe.
func (b Bandwidth) Loaded() bool { return b.OthersBusy != nil && *b.OthersBusy > loadedCores }

// ReadBandwidth streams a buffer of ProbeBytes passes times on threads
// workers and returns the best and median read bandwidth in GB/s (10⁹
// bytes per second). threads ≤ 0 means pool.DefaultThreads(). It
// allocates and touches the buffer first, so page faults are not timed,
// and frees it before returning.
func ReadBandwidth(threads, passes int) (best, median float64) {
	b, err := MeasureBandwidth(threads, passes, ProbeBytes())
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
	if bytes < minWindowBytes {
		return Bandwidth{}, fmt.Errorf("perf: bandwidth: buffer of %d bytes: must be at least %d", bytes, minWindowBytes)
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
	b := timePasses(p, [][]uint64{buf}, passes)
	b.Source, b.OthersBusy = SourceBuffer, load.othersBusy()
	return b, nil
}

// MeasureBandwidthOver is MeasureBandwidth reading regions the caller
// holds (a loaded model's weights, engine.Model.WeightPages) instead of a
// buffer of its own: nothing is allocated, so the process's memory does
// not move, and the bytes read are the ones decode reads. Each region of
// at least minWindowBytes is read from its first 8-byte word in whole
// 256-byte blocks; one untimed pass first brings every page in (a page
// the OS dropped would time the disk). The regions must stay mapped until
// it returns.
func MeasureBandwidthOver(threads, passes int, regions [][]byte) (Bandwidth, error) {
	if passes < 1 {
		return Bandwidth{}, fmt.Errorf("perf: bandwidth: passes %d: must be at least 1", passes)
	}
	words := wordsOf(regions)
	wins, _ := windows(words)
	if len(wins) == 0 {
		return Bandwidth{}, fmt.Errorf("perf: bandwidth: no region of at least %d bytes to read", minWindowBytes)
	}
	p := pool.New(threads)
	defer p.Close()
	load := startLoad()
	for _, w := range wins {
		timeRead(p, w)
	}
	b := timePasses(p, words, passes)
	b.Source, b.OthersBusy = SourceWeights, load.othersBusy()
	return b, nil
}

// wordsOf views each region as whole blocks of 8-byte words, from its
// first aligned word; regions shorter than a block are left out.
func wordsOf(regions [][]byte) [][]uint64 {
	var out [][]uint64
	for _, r := range regions {
		skip := int((8 - uintptr(unsafe.Pointer(unsafe.SliceData(r)))%8) % 8)
		if len(r) < skip+readBlock {
			continue
		}
		n := (len(r) - skip) / readBlock * readWords
		out = append(out, unsafe.Slice((*uint64)(unsafe.Pointer(&r[skip])), n))
	}
	return out
}

// The probe times windows of windowBytes, not whole passes: on a shared
// machine a pass of 1 GiB (40 ms at 26 GB/s) is almost never run by both
// cores from start to end, and its figure measures the other programs
// (the development VM under load 20–28: 2–9 GB/s by whole 1 GiB passes of
// a plain C loop; 22–27 GB/s, as when the VM is quiet, by the best of its
// 32 MiB windows). Each window is read by every worker, its band as four
// streams; one window follows the other through the buffer, so every
// window comes from DRAM as long as the buffer is larger than the cache.
// A probe times at least minWindows windows (passes over the buffer
// repeated as needed); regions shorter than minWindowBytes (a small
// model's matrices) are not timed: the workers' start would weigh on them.
//
// The figure is every window at its fastest: the bytes over the sum of
// each window's best time. A window's speed is mostly where its pages lie
// (on the development VM, one thread over a Q4_K_M file's 146 windows,
// ten passes: the windows' medians ranged from 11.6 to 18.0 GB/s, each
// window within 2.7 GB/s of itself from pass to pass), so the single
// fastest window (18.8) measured the best-placed 32 MiB, not what reading
// every weight, as a decode step does, can reach (16.0).
const (
	windowBytes    = 32 << 20
	minWindowBytes = 1 << 20
	minWindows     = 128
)

// timePasses reads every window of regions, passes times or more (see
// minWindows), and returns the figures (passFigures).
func timePasses(p *pool.Pool, regions [][]uint64, passes int) Bandwidth {
	wins, words := windows(regions)
	if len(wins) > 0 {
		passes = max(passes, (minWindows+len(wins)-1)/len(wins))
	}
	bytes := make([]float64, len(wins))
	for k, w := range wins {
		bytes[k] = float64(len(w) * 8)
	}
	secs := make([][]float64, passes)
	for i := range secs {
		secs[i] = make([]float64, len(wins))
		for k, w := range wins {
			secs[i][k] = timeRead(p, w)
		}
	}
	f := passFigures(bytes, secs)
	return Bandwidth{
		CPU: CPUName(), Threads: p.Threads(), Pinned: p.Pinned(),
		Bytes: int64(words) * 8, Passes: passes, Loop: readLoopName(),
		BestGBs: f.best, BestWindowGBs: f.bestWindow, MedianGBs: stats.Median(f.passes),
		When: time.Now().UTC(),
	}
}

// figures are a probe's rates in GB/s (10⁹ bytes a second).
type figures struct {
	best       float64   // Σ bytes / Σ over windows of each one's fastest time
	bestWindow float64   // the fastest window alone
	passes     []float64 // Σ bytes / Σ times, each pass
}

// passFigures turns the seconds secs[pass][window] that reading windows of
// bytes[window] took into the probe's figures.
func passFigures(bytes []float64, secs [][]float64) figures {
	var f figures
	total, fastest := sum(bytes), make([]float64, len(bytes))
	for i, pass := range secs {
		for k, s := range pass {
			if i == 0 || s < fastest[k] {
				fastest[k] = s
			}
			f.bestWindow = max(f.bestWindow, stats.OrZero(stats.Ratio(bytes[k], s*1e9)))
		}
		f.passes = append(f.passes, stats.OrZero(stats.Ratio(total, sum(pass)*1e9)))
	}
	f.best = stats.OrZero(stats.Ratio(total, sum(fastest)*1e9))
	return f
}

// sum is Σ xs.
func sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

// windows cuts regions into windows of windowBytes, whole blocks (a tail
// shorter than minWindowBytes joins the window before it), leaving out
// regions shorter than minWindowBytes; words counts them all.
func windows(regions [][]uint64) (wins [][]uint64, words int) {
	const per, least = windowBytes / 8, minWindowBytes / 8
	for _, r := range regions {
		if len(r) < least {
			continue
		}
		for lo := 0; lo < len(r); lo += per {
			hi := min(len(r), lo+per)
			if len(r)-hi < least { // a short tail goes with this window
				hi = len(r)
			}
			w := r[lo:hi]
			w = w[:len(w)/readWords*readWords]
			wins, words = append(wins, w), words+len(w)
			lo = hi - per
		}
	}
	return wins, words
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

// WeightHolder is a loaded model whose weights a probe can read in place
// (*engine.Model).
type WeightHolder interface {
	WeightPages() [][]byte
}

// MeasureBeside probes the read bandwidth beside a loaded model m (nil:
// none): over its weights where they are at least minBufferBytes, so the
// probe allocates nothing and reads the very bytes decode reads (from the
// caches too, where they fit: so does decode), else over a buffer of
// ProbeBytes. A smaller buffer would be read partly from the cache (on
// the development VM one thread read 27 GB/s from 64 MiB, 17 from
// 208 MiB and from a model's 931 MiB). m must stay loaded until it
// returns.
func MeasureBeside(m WeightHolder, threads, passes int) (Bandwidth, error) {
	if ReadsWeights(m) {
		if b, err := MeasureBandwidthOver(threads, passes, m.WeightPages()); err == nil {
			return b, nil
		} // no matrix as large as a window: a buffer, then
	}
	return MeasureBandwidth(threads, passes, ProbeBytes())
}

// ReadsWeights reports whether MeasureBeside reads m's own weights (nil:
// no model): they are at least minBufferBytes. A smaller model's probe
// reads a buffer of its own, the same whichever model is loaded.
func ReadsWeights(m WeightHolder) bool {
	if m == nil {
		return false
	}
	var n int64
	for _, p := range m.WeightPages() {
		n += int64(len(p))
	}
	return n >= minBufferBytes
}
