package perf

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"loupe/engine/pool"
	"loupe/kernels"
)

// sumOracle is the plain definition of readSum: Σ buf[i] mod 2⁶⁴.
func sumOracle(buf []uint64) uint64 {
	var s uint64
	for _, v := range buf {
		s += v
	}
	return s
}

// TestReadSum compares both read loops with the oracle over sizes in whole
// blocks and start offsets that break 32-byte alignment.
func TestReadSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]uint64, 40*readWords+7)
	for i := range data {
		data[i] = rng.Uint64() // wraps: checks the mod 2⁶⁴ sum too
	}
	loops := map[string]func([]uint64) uint64{"generic": readSumGeneric, "dispatch": readSum}
	if useAVX2 {
		loops["avx2"] = func(b []uint64) uint64 {
			if len(b) == 0 {
				return 0
			}
			return readSumAVX2(&b[0], len(b)/4, 2*len(b))
		}
	}
	if useAVX512 {
		loops["avx512"] = func(b []uint64) uint64 {
			if len(b) == 0 {
				return 0
			}
			return readSumAVX512(&b[0], len(b)/4, 2*len(b))
		}
	} else {
		t.Log("CPU lacks AVX-512F: avx512 read loop not tested")
	}
	for name, f := range loops {
		for _, blocks := range []int{0, 1, 2, 3, 17, 40} {
			for off := range 7 {
				if off+blocks*readWords > len(data) {
					continue
				}
				buf := data[off : off+blocks*readWords]
				if got, want := f(buf), sumOracle(buf); got != want {
					t.Errorf("%s: %d blocks at offset %d: sum %d, want %d", name, blocks, off, got, want)
				}
			}
		}
	}
}

// TestFillThenRead: after fill every word holds its index, so the parallel
// read of the whole buffer sums to n(n-1)/2.
func TestFillThenRead(t *testing.T) {
	buf, free, err := allocBuffer(1 << 16)
	if err != nil {
		t.Fatal(err)
	}
	defer free()
	p := pool.New(2)
	defer p.Close()
	fill(p, buf)
	n := uint64(len(buf))
	if got := readSum(buf); got != n*(n-1)/2 {
		t.Fatalf("sum %d, want %d", got, n*(n-1)/2)
	}
	if sec := timeRead(p, buf); sec <= 0 {
		t.Fatalf("read took %v s", sec)
	}
}

func TestMeasureBandwidth(t *testing.T) {
	b, err := MeasureBandwidth(2, 3, 8<<20)
	if err != nil {
		t.Fatal(err)
	}
	if b.Bytes != 8<<20 || b.Passes != minWindows || b.Threads < 1 || b.Threads > 2 { // one window a pass
		t.Fatalf("bad description %+v", b)
	}
	if b.BestGBs <= 0 || b.MedianGBs <= 0 || b.MedianGBs > b.BestGBs {
		t.Fatalf("best %.1f median %.1f GB/s", b.BestGBs, b.MedianGBs)
	}
	t.Logf("8 MiB (in cache), %d threads, %s loop: best %.1f median %.1f GB/s", b.Threads, b.Loop, b.BestGBs, b.MedianGBs)
	if _, err := MeasureBandwidth(1, 0, 8<<20); err == nil {
		t.Error("0 passes accepted")
	}
	if _, err := MeasureBandwidth(1, 1, 100); err == nil {
		t.Error("100-byte buffer accepted")
	}
}

func TestBest(t *testing.T) {
	cases := []struct {
		xs   []float64
		best float64
	}{
		{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 5}, {[]float64{4, 1, 3, 2}, 4},
	}
	for _, c := range cases {
		if b := best(c.xs); b != c.best {
			t.Errorf("%v: best %v, want %v", c.xs, b, c.best)
		}
	}
}

// TestFMALoopCountsOperations: the probe's loop reports a positive count
// proportional to its iterations, at every level this CPU supports.
func TestFMALoopCountsOperations(t *testing.T) {
	defer kernels.SetLevel(kernels.Active())
	for l := kernels.Generic; l <= kernels.AVX512BF16; l++ {
		if !kernels.Supported(l) {
			continue
		}
		if err := kernels.SetLevel(l); err != nil {
			t.Fatal(err)
		}
		a, b := fmaLoop(1000), fmaLoop(3000)
		if a <= 0 || b != 3*a {
			t.Errorf("%s: %d operations for 1000 iterations, %d for 3000", l, a, b)
		}
		if z := fmaLoop(0); z != 0 {
			t.Errorf("%s: fmaLoop(0) = %d", l, z)
		}
	}
}

func TestMeasureCompute(t *testing.T) {
	c := MeasureCompute(2)
	if c.GFLOPs <= 0 || c.Threads < 1 || c.Level == "" {
		t.Fatalf("bad compute probe %+v", c)
	}
	if d := c.GFLOPsPerCore*float64(c.Threads) - c.GFLOPs; d*d > 1e-9 {
		t.Fatalf("per core %.3f × %d threads ≠ %.3f", c.GFLOPsPerCore, c.Threads, c.GFLOPs)
	}
	t.Logf("%s, %d threads: %.1f GFLOP/s (%.1f per core)", c.Level, c.Threads, c.GFLOPs, c.GFLOPsPerCore)
}

// TestCalibrate: calibrate ends with a positive count (no timed bound:
// on a loaded machine any wall-clock limit fails for the wrong reason).
func TestCalibrate(t *testing.T) {
	if iters := calibrate(fmaLoop, 20*time.Millisecond); iters <= 0 {
		t.Fatalf("calibrate gave %d iterations", iters)
	}
}

func TestParseVmHWM(t *testing.T) {
	status := "Name:\tloupe\nVmPeak:\t  999 kB\nVmHWM:\t   123456 kB\nVmRSS:\t 1000 kB\n"
	if kb, ok := parseVmHWM([]byte(status)); !ok || kb != 123456 {
		t.Fatalf("got %d %v, want 123456", kb, ok)
	}
	for _, bad := range []string{"", "VmRSS:\t1 kB\n", "VmHWM:\t12 MB\n", "VmHWM:\tx kB\n"} {
		if _, ok := parseVmHWM([]byte(bad)); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

// TestPeakRSS: touching 64 MiB raises the peak by about that much, and
// ResetPeakRSS brings it back down once the memory is unmapped.
func TestPeakRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("peak RSS is read on Linux only")
	}
	if err := ResetPeakRSS(); err != nil {
		t.Skip(err)
	}
	before := PeakRSS()
	const size = 64 << 20
	buf, free, err := allocBuffer(size / 8)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(buf); i += 512 { // one word per 4 KiB page
		buf[i] = 1
	}
	during := PeakRSS()
	free()
	if during-before < size*9/10 {
		t.Fatalf("peak grew by %d bytes after touching %d", during-before, size)
	}
	if err := ResetPeakRSS(); err != nil {
		t.Fatal(err)
	}
	if after := PeakRSS(); after > during-size*9/10 {
		t.Fatalf("peak %d after reset, was %d with the buffer", after, during)
	}
}

func TestBandwidthCache(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir()) // macOS reads ~/Library/Caches
	if _, ok := CachedBandwidth(2); ok {
		t.Fatal("empty cache has an entry")
	}
	b := Bandwidth{CPU: CPUName(), Threads: 2, BestGBs: 41.5, MedianGBs: 40, Passes: 5, When: time.Now()}
	if err := SaveBandwidth(b); err != nil {
		t.Fatal(err)
	}
	if err := SaveBandwidth(Bandwidth{CPU: CPUName(), Threads: 1, BestGBs: 30}); err != nil {
		t.Fatal(err)
	}
	got, ok := CachedBandwidth(2)
	if !ok || got.BestGBs != 41.5 || got.MedianGBs != 40 {
		t.Fatalf("cached %+v %v", got, ok)
	}
	if got, ok := CachedBandwidth(1); !ok || got.BestGBs != 30 {
		t.Fatalf("1-thread entry lost: %+v %v", got, ok)
	}
	if _, ok := CachedBandwidth(3); ok && pool.Effective(3) == 3 {
		t.Fatal("3-thread entry found")
	}
	if got, ok := CachedBandwidth(0); pool.Effective(0) <= 2 && (!ok || got.Threads != pool.Effective(0)) {
		t.Fatalf("CachedBandwidth(0) gave %+v %v, want the %d-thread entry", got, ok, pool.Effective(0))
	}
	path, _ := cachePath()
	if err := os.WriteFile(path, []byte("{broken"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := CachedBandwidth(2); ok {
		t.Fatal("corrupt cache read")
	}
	if err := SaveBandwidth(b); err != nil {
		t.Fatalf("corrupt cache not replaced: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), cacheFile)); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkReadBandwidth reports the streaming read bandwidth of a 256 MiB
// buffer (≫ L3) for 1 and 2 threads.
func BenchmarkReadBandwidth(b *testing.B) {
	for _, threads := range []int{1, 2} {
		b.Run(map[int]string{1: "threads=1", 2: "threads=2"}[threads], func(b *testing.B) {
			buf, free, err := allocBuffer(256 << 20 / 8)
			if err != nil {
				b.Fatal(err)
			}
			defer free()
			p := pool.New(threads)
			defer p.Close()
			fill(p, buf)
			b.SetBytes(int64(len(buf)) * 8)
			for b.Loop() {
				timeRead(p, buf)
			}
		})
	}
}

// TestProcessCPUSeconds: spinning raises the process CPU time (within 5 s of
// wall time even on a busy machine).
func TestProcessCPUSeconds(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no getrusage")
	}
	c0, start := processCPUSeconds(), time.Now()
	x := 1.0
	for processCPUSeconds()-c0 < 0.02 {
		for range 100000 {
			x = x*1.0000001 + 1e-9
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("CPU time stayed at %v s while spinning", processCPUSeconds()-c0)
		}
	}
	fmaSinkTest = x
}

var fmaSinkTest float64

// TestRememberBandwidth keeps the best recent figure: a lower new one is
// not saved, a higher one is, and a lower one replaces a stale entry.
func TestRememberBandwidth(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	now := time.Now()
	steps := []struct {
		gbs   float64
		when  time.Time
		saved bool
		want  float64
	}{
		{30, now, true, 30},                                // empty cache
		{20, now.Add(time.Hour), false, 30},                // lower: kept out
		{40, now.Add(2 * time.Hour), true, 40},             // higher: saved
		{10, now.Add(2*time.Hour + cacheMaxAge), true, 10}, // old entry: replaced
	}
	for i, s := range steps {
		saved, err := RememberBandwidth(Bandwidth{CPU: CPUName(), Threads: 2, BestGBs: s.gbs, When: s.when})
		if err != nil || saved != s.saved {
			t.Fatalf("step %d: saved %v err %v, want saved %v", i, saved, err, s.saved)
		}
		if got, _ := CachedBandwidth(2); got.BestGBs != s.want {
			t.Fatalf("step %d: cache holds %v GB/s, want %v", i, got.BestGBs, s.want)
		}
	}
}

// TestBandwidthHistory: every probe is kept with its date, newest first,
// up to maxProbes with the best always among them; the figure is the best
// recent one; an entry of the first format (one object) still reads.
func TestBandwidthHistory(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	now := time.Now().UTC()
	busy := 1.5
	for i, gbs := range []float64{30, 45, 20, 21, 22, 23, 24, 25, 26, 27} {
		b := Bandwidth{CPU: CPUName(), Threads: 2, BestGBs: gbs, When: now.Add(time.Duration(i-20) * time.Minute)}
		if gbs == 45 {
			b.OthersBusy = &busy
		}
		if err := SaveBandwidth(b); err != nil {
			t.Fatal(err)
		}
	}
	c, ok := BandwidthCeiling(2)
	if !ok || c.Best.BestGBs != 45 || !c.UnderLoad() || c.Stale(now) {
		t.Fatalf("ceiling %+v ok %v", c.Best, ok)
	}
	if len(c.Probes) != maxProbes {
		t.Fatalf("%d probes kept, want %d", len(c.Probes), maxProbes)
	}
	if c.Probes[0].BestGBs != 27 || c.Probes[maxProbes-1].BestGBs != 45 {
		t.Errorf("kept %v, want the newest first and the best last", gbsOf(c.Probes))
	}
	if !c.Stale(now.Add(StaleAfter + time.Hour)) {
		t.Error("a best figure older than StaleAfter is not stale")
	}
	path, _ := cachePath()
	old := `{"` + cacheKey(CPUName(), 1) + `": {"cpu": "x", "threads": 1, "best_gb_per_s": 33, "when": "2026-11-30T10:00:00Z"}}`
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, ok := CachedBandwidth(1); !ok || b.BestGBs != 33 || b.OthersBusy != nil || b.Loaded() {
		t.Fatalf("first-format entry: %+v %v", b, ok)
	}
}

func gbsOf(bs []Bandwidth) []float64 {
	var out []float64
	for _, b := range bs {
		out = append(out, b.BestGBs)
	}
	return out
}

// TestProbeLoad: a probe records the load beside it, and a busy goroutine
// of another process is what it counts (here: none; our own workers are
// not counted, so an idle machine gives about 0).
func TestProbeLoad(t *testing.T) {
	b, err := MeasureBandwidth(1, 2, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" && (b.OthersBusy == nil || *b.OthersBusy < 0) {
		t.Fatalf("no load beside the probe on Linux: %+v", b)
	}
	if b.OthersBusy != nil {
		t.Logf("other programs kept %.2f cores busy during the probe", *b.OthersBusy)
	}
}

// TestMeasureComputeForPicksTheLoopOfTheProducts: a prefill in fp32 is set
// against the fp32 FMA loop even where the level's own loop is VDPBF16PS,
// one rounding every product to bf16 against the level's loop, and one
// rounding some parts against the faster of the two, and an integer
// prefill against the faster of the integer tiles' loop and FMA's.
func TestMeasureComputeForPicksTheLoopOfTheProducts(t *testing.T) {
	defer kernels.SetLevel(kernels.Active())
	defer func(f, g, h func(int) int64) { fmaLoop, fp32Loop, int8Loop = f, g, h }(fmaLoop, fp32Loop, int8Loop)
	var ran []string
	stub := func(name string, flops int64) func(int) int64 {
		return func(n int) int64 {
			ran = append(ran, name)
			time.Sleep(time.Microsecond)
			return flops << 30 // a rate set by the stub, whatever the count
		}
	}
	// Rates 4096 times apart: a stub's rate is its count over the time its
	// 1 µs sleep took, and on a loaded machine (CI runs packages side by
	// side) the best of 200 sleeps can differ several times between loops.
	fmaLoop, fp32Loop, int8Loop = stub("own", 1), stub("fp32", 1<<12), stub("int8", 1<<24)
	for l := kernels.Generic; l <= kernels.AVX512BF16; l++ {
		if !kernels.Supported(l) {
			continue
		}
		if err := kernels.SetLevel(l); err != nil {
			t.Fatal(err)
		}
		two := l == kernels.AVX512BF16 // the one level with two loops
		for _, c := range []struct {
			arith, loop string
			ran         []string
		}{
			{"fp32", "fp32 FMA", []string{"own"}},
			{"int8", "fp32 FMA", []string{"own"}},
			{"bf16", "fp32 FMA", []string{"own"}},
			{"bf16:experts", "fp32 FMA", []string{"own"}},
			{"int8+prefill", "fp32 FMA", []string{"own"}},
		} {
			if c.arith == "int8+prefill" && kernels.Int8PeakLoopName() != "" {
				c.loop, c.ran = kernels.Int8PeakLoopName(), []string{"int8", "fp32"}
			} else if two {
				switch c.arith {
				case "fp32", "int8", "int8+prefill":
					c.ran = []string{"fp32"}
				case "bf16":
					c.loop = "bf16 VDPBF16PS"
				default: // both; the stub fp32 loop is the faster
					c.ran = []string{"own", "fp32"}
				}
			}
			ran = nil
			got := MeasureComputeFor(1, c.arith)
			if got.Loop != c.loop {
				t.Errorf("%s, %s: loop %q, want %q", l, c.arith, got.Loop, c.loop)
			}
			if first, last := ran[0], ran[len(ran)-1]; first != c.ran[0] || last != c.ran[len(c.ran)-1] {
				t.Errorf("%s, %s: ran %v…%v, want %v", l, c.arith, first, last, c.ran)
			}
		}
	}
}
