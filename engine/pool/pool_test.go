package pool

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestForCoversRange checks, for many n and thread counts, that every index
// of [0, n) is visited exactly once, that each body call gets one of the
// Chunks pieces of Range, and that no two calls for the same worker index
// overlap in time (per-worker scratch stays private).
func TestForCoversRange(t *testing.T) {
	for _, threads := range []int{1, 2, 3, 4, 7, 16} {
		p := newPool(threads)
		for _, n := range []int{0, 1, 2, 3, 5, 7, 8, 15, 16, 17, 100, 1023, 1536, 8960} {
			checkCover(t, p, n)
		}
		p.Close()
	}
}

func checkCover(t *testing.T, p *Pool, n int) {
	t.Helper()
	hits := make([]int32, n)
	busy := make([]atomic.Int32, p.Threads())
	var calls, overlaps, badWorker, badSpan atomic.Int32
	w := min(n, p.Threads())
	chunks := Chunks(n, max(w, 1))
	if w == 1 {
		chunks = 1
	}
	spans := map[[2]int]bool{}
	for c := range chunks {
		lo, hi := Range(n, chunks, c)
		spans[[2]int{lo, hi}] = true
	}
	p.For(n, func(worker, lo, hi int) {
		calls.Add(1)
		if worker < 0 || worker >= p.Threads() {
			badWorker.Add(1)
			return
		}
		if busy[worker].Add(1) != 1 {
			overlaps.Add(1)
		}
		defer busy[worker].Add(-1)
		if !spans[[2]int{lo, hi}] {
			badSpan.Add(1)
		}
		for i := lo; i < hi; i++ {
			atomic.AddInt32(&hits[i], 1)
		}
	})
	for i, h := range hits {
		if h != 1 {
			t.Fatalf("threads %d n %d: index %d visited %d times", p.Threads(), n, i, h)
		}
	}
	if n > 0 && int(calls.Load()) != chunks {
		t.Fatalf("threads %d n %d: %d body calls, want %d chunks", p.Threads(), n, calls.Load(), chunks)
	}
	if badWorker.Load()+overlaps.Load()+badSpan.Load() != 0 {
		t.Fatalf("threads %d n %d: %d calls with a worker out of range, %d overlapping calls of one worker, %d spans that are not a chunk",
			p.Threads(), n, badWorker.Load(), overlaps.Load(), badSpan.Load())
	}
}

// TestRangeBalanced checks the split is within one element of equal.
func TestRangeBalanced(t *testing.T) {
	for _, n := range []int{1, 7, 100, 151936} {
		for w := 1; w <= min(n, 13); w++ {
			for i := range w {
				lo, hi := Range(n, w, i)
				if d := hi - lo; d != n/w && d != n/w+1 {
					t.Fatalf("n %d w %d worker %d: size %d", n, w, i, d)
				}
			}
		}
	}
}

// TestForManyCallsAfterIdle exercises the spin → park → wake path: calls
// separated by more than the spin window must still see every worker.
func TestForManyCallsAfterIdle(t *testing.T) {
	p := newPool(3)
	defer p.Close()
	for k := range 5 {
		checkCover(t, p, 300+k)
		waitParked(t, p)
	}
	for k := range 2000 { // back-to-back: the spinning path
		checkCover(t, p, 3+k%50)
	}
}

// TestForSumMatchesSerial is an end-to-end check on real arithmetic: the
// parallel sum of i over [0, n) must equal n(n-1)/2.
func TestForSumMatchesSerial(t *testing.T) {
	p := newPool(4)
	defer p.Close()
	const n = 1 << 20
	parts := make([]int64, p.Threads())
	p.For(n, func(w, lo, hi int) {
		var s int64
		for i := lo; i < hi; i++ {
			s += int64(i)
		}
		parts[w] += s // a worker may run several chunks
	})
	var total int64
	for _, s := range parts {
		total += s
	}
	if want := int64(n) * (n - 1) / 2; total != want {
		t.Fatalf("sum %d, want %d", total, want)
	}
}

// TestWorkerPanicPropagates: a panic in a chunk reaches the caller after
// every running chunk has finished, as *Panic when a persistent worker
// ran it, or unchanged when the caller did; the pool still works
// afterwards.
func TestWorkerPanicPropagates(t *testing.T) {
	p := newPool(4)
	defer p.Close()
	boom := errors.New("boom")
	var running, finished atomic.Int32
	r := catch(func() {
		p.For(4, func(w, lo, hi int) {
			running.Add(1)
			defer running.Add(-1)
			if lo == 2 {
				panic(boom)
			}
			time.Sleep(time.Millisecond)
			finished.Add(1)
		})
	})
	switch pv := r.(type) {
	case *Panic:
		if pv.Worker < 1 || pv.Worker > 3 || !errors.Is(pv, boom) || !strings.Contains(pv.Error(), "boom") || len(pv.Stack) == 0 {
			t.Fatalf("bad panic %+v", pv)
		}
	case error:
		if pv != boom {
			t.Fatalf("recovered %v, want boom", pv)
		}
	default:
		t.Fatalf("recovered %T %v", r, r)
	}
	if running.Load() != 0 {
		t.Fatalf("%d ranges still running when the panic reached the caller", running.Load())
	}
	if finished.Load() == 0 {
		t.Fatal("the caller's own range did not finish")
	}
	checkCover(t, p, 1000)
}

// TestCallerPanicUnchanged: the caller's own panic (chunk 0 is always the
// caller's) unwinds with its value, with no chunk still running; chunks
// not started are dropped.
func TestCallerPanicUnchanged(t *testing.T) {
	for _, threads := range []int{2, 4} {
		p := newPool(threads)
		var running atomic.Int32
		r := catch(func() {
			p.For(threads, func(w, lo, hi int) {
				running.Add(1)
				defer running.Add(-1)
				if lo == 0 {
					if w != 0 {
						t.Errorf("chunk 0 ran on worker %d, not the caller", w)
					}
					panic("caller share")
				}
				time.Sleep(2 * time.Millisecond)
			})
		})
		if r != "caller share" {
			t.Fatalf("recovered %v, want the caller's value", r)
		}
		if running.Load() != 0 {
			t.Fatalf("%d ranges still running after the caller unwound", running.Load())
		}
		checkCover(t, p, 10)
		p.Close()
	}
}

// TestStolenRangePanics: when the caller runs the chunks of parked workers
// and one panics, the chunks left are dropped and For does not hang.
func TestStolenRangePanics(t *testing.T) {
	p := newPool(4)
	defer p.Close()
	waitParked(t, p) // parked workers: the caller may take their ranges
	done := make(chan any)
	go func() {
		done <- catch(func() {
			p.For(4, func(w, lo, hi int) {
				if lo != 0 {
					panic(lo)
				}
			})
		})
	}()
	select {
	case r := <-done:
		if r == nil {
			t.Fatal("no panic")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("For hung after a panic in a range the caller took over")
	}
	checkCover(t, p, 100)
}

func catch(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

// TestCloseIdempotent: Close twice is fine, and For after Close runs the
// whole range on the caller.
func TestCloseIdempotent(t *testing.T) {
	p := New(3)
	p.Close()
	p.Close()
	var calls int
	p.For(10, func(w, lo, hi int) {
		calls++
		if w != 0 || lo != 0 || hi != 10 {
			t.Fatalf("after Close got worker %d [%d,%d)", w, lo, hi)
		}
	})
	if calls != 1 {
		t.Fatalf("%d calls after Close", calls)
	}
}

// TestCloseWhileParked: workers parked after the spin window exit on Close.
func TestCloseWhileParked(t *testing.T) {
	p := newPool(4)
	checkCover(t, p, 100)
	waitParked(t, p)
	done := make(chan struct{})
	go func() { p.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return")
	}
}

// TestConcurrentCallers: For from several goroutines is serialised.
func TestConcurrentCallers(t *testing.T) {
	p := New(3)
	defer p.Close()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 200 {
				checkCover(t, p, 10+g+k%7)
			}
		}()
	}
	wg.Wait()
}

func TestDefaultThreads(t *testing.T) {
	if n := DefaultThreads(); n < 1 {
		t.Fatalf("DefaultThreads %d", n)
	}
	p := New(0)
	defer p.Close()
	if want := min(DefaultThreads(), runtime.GOMAXPROCS(0)); p.Threads() != want {
		t.Fatalf("New(0) has %d threads, want %d", p.Threads(), want)
	}
	if p.Threads() != Effective(0) || Effective(1) != 1 || Effective(1000) != runtime.GOMAXPROCS(0) {
		t.Fatalf("Effective: %d for New(0) with %d threads; 1 → %d; 1000 → %d", Effective(0), p.Threads(), Effective(1), Effective(1000))
	}
	if p.Threads() > runtime.GOMAXPROCS(0) {
		t.Fatalf("%d threads above GOMAXPROCS %d", p.Threads(), runtime.GOMAXPROCS(0))
	}
	if p.Pinned() > p.Threads()-1 {
		t.Fatalf("%d pinned of %d", p.Pinned(), p.Threads())
	}
}

// BenchmarkForEmpty measures the overhead of one For call: an empty body
// over as many rows as there are threads, back to back (the decode pattern).
func BenchmarkForEmpty(b *testing.B) {
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			p := New(threads)
			defer p.Close()
			body := func(w, lo, hi int) {}
			for b.Loop() {
				p.For(1536, body)
			}
		})
	}
}

// BenchmarkGoroutinePerCall is the provisional implementation the pool
// replaced (a goroutine per worker per call), for comparison.
func BenchmarkGoroutinePerCall(b *testing.B) {
	body := func(w, lo, hi int) {}
	for b.Loop() {
		var wg sync.WaitGroup
		for i := range 2 {
			lo, hi := Range(1536, 2, i)
			wg.Add(1)
			go func() { defer wg.Done(); body(i, lo, hi) }()
		}
		wg.Wait()
	}
}

// BenchmarkForWork is For over 1536 rows of 64 floats (~25 µs of serial
// work, the size of a small decode matrix): with 2 threads the time minus
// half the 1-thread time is the cost of going parallel.
func BenchmarkForWork(b *testing.B) {
	const rows, cols = 1536, 64
	x := make([]float32, rows*cols)
	for i := range x {
		x[i] = float32(i%7) * 0.5
	}
	out := make([]float32, rows)
	body := func(_, lo, hi int) {
		for r := lo; r < hi; r++ {
			var s float32
			for _, v := range x[r*cols : r*cols+cols] {
				s += v * v
			}
			out[r] = s
		}
	}
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			p := New(threads)
			defer p.Close()
			for b.Loop() {
				p.For(rows, body)
			}
		})
	}
}

// waitParked waits for the event the park path needs: every persistent
// worker's parked flag up, which spinUntil raises just before it blocks on
// its wake channel (after parkAfter without work).
func waitParked(t *testing.T, p *Pool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !allParked(p) {
		if time.Now().After(deadline) {
			t.Fatal("the workers did not park within 10 s")
		}
		runtime.Gosched()
	}
}

func allParked(p *Pool) bool {
	for _, s := range p.workers[1:] {
		if !s.parked.Load() {
			return false
		}
	}
	return true
}
