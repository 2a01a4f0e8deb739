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
// 208 MiB (218 MB; `loupe membw` then peaks at 270 MB with the program
// itself). The probe runs beside a loaded model, on laptops of
// 8 GB holding a 3 GB one: 1 GiB there was the difference between working
// and swapping. A loaded model's own weights are read instead where they
// are larger (MeasureBandwidthOver).
const DefaultBufferBytes = 208 << 20

// minBufferBytes is the least the probe streams, whatever the cache says.
const minBufferBytes = 64 << 20

// ProbeBytes is the buffer the probe streams on this CPU: four times the
// last-level cache, so that every pass comes from DRAM (32 MiB on a Ryzen
// 9900X: 128 MiB), at least 64 MiB and at most DefaultBufferBytes. A
// server CPU whose cache is larger than that (480 MiB on the development
// VM's host) cannot be measured past its cache within that memory: its
// figure then comes from a model's weights (MeasureBandwidthOver).
func ProbeBytes() int64 { return probeBytes(int64(cpuid.CPU.Cache.L3)) }

func probeBytes(l3 int64) int64 {
	b := min(max(4*l3, minBufferBytes), DefaultBufferBytes)
	return b &^ (2<<20 - 1) // whole 2 MiB pages
}

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
	// Source is what was read: "buffer" (one the probe allocated) or
	// "model weights" (a loaded model's, MeasureBandwidthOver).
	Source string `json:"source,omitempty"`
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
	b := timePasses(p, [][]uint64{buf}, passes)
	b.Source, b.OthersBusy = "buffer", load.othersBusy()
	return b, nil
}

// MeasureBandwidthOver is MeasureBandwidth reading regions the caller
// holds (a loaded model's weights, engine.Model.WeightPages) instead of a
// buffer of its own: nothing is allocated, so the process's memory does
// not move, and the bytes read are the ones decode reads. Each region is
// read from its first 8-byte word in whole 256-byte blocks; one untimed
// pass first brings every page in (a page the OS dropped would time the
// disk). The regions must stay mapped until it returns.
func MeasureBandwidthOver(threads, passes int, regions [][]byte) (Bandwidth, error) {
	if passes < 1 {
		return Bandwidth{}, fmt.Errorf("perf: bandwidth: passes %d: must be at least 1", passes)
	}
	words := wordsOf(regions)
	if len(words) == 0 {
		return Bandwidth{}, fmt.Errorf("perf: bandwidth: no region of at least %d bytes to read", readBlock)
	}
	p := pool.New(threads)
	defer p.Close()
	load := startLoad()
	timePasses(p, words, 1)
	b := timePasses(p, words, passes)
	b.Source, b.OthersBusy = "model weights", load.othersBusy()
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

// passBytes is the least one timed pass reads: a smaller buffer is read
// several times a pass. Passes of a few milliseconds time unfairly (a
// 256 MiB buffer read once a pass said 92 GB/s on 2 threads where 1 GiB
// said 84); the 1 GiB probe's passes lasted this long.
const passBytes = 1 << 30

// timePasses reads every region passes times (each pass at least
// passBytes: the regions again and again) and returns the figures.
func timePasses(p *pool.Pool, regions [][]uint64, passes int) Bandwidth {
	var words int
	for _, r := range regions {
		words += len(r)
	}
	reps := max(1, (passBytes+words*8-1)/(words*8))
	gbs := make([]float64, passes)
	for i := range gbs {
		var sec float64
		for range reps {
			for _, r := range regions {
				sec += timeRead(p, r)
			}
		}
		gbs[i] = float64(reps*words*8) / sec / 1e9
	}
	return Bandwidth{
		CPU: CPUName(), Threads: p.Threads(), Pinned: p.Pinned(),
		Bytes: int64(words) * 8, Passes: passes, Loop: readLoopName(),
		BestGBs: best(gbs), MedianGBs: stats.Median(gbs), When: time.Now().UTC(),
	}
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
// none): over its weights where they are at least ProbeBytes, so the probe
// allocates nothing and reads the very bytes decode reads, else over a
// buffer of ProbeBytes. m must stay loaded until it returns.
func MeasureBeside(m WeightHolder, threads, passes int) (Bandwidth, error) {
	if m != nil {
		pages := m.WeightPages()
		var n int64
		for _, p := range pages {
			n += int64(len(p))
		}
		if n >= ProbeBytes() {
			return MeasureBandwidthOver(threads, passes, pages)
		}
	}
	return MeasureBandwidth(threads, passes, ProbeBytes())
}
