// Package pool runs data-parallel loops on a fixed set of persistent workers.
//
// A decode step of Qwen2.5-1.5B issues about 200 For calls (one per matrix
// product, split by rows), so the cost of one For must stay in microseconds:
// starting goroutines per call, or waking parked threads through the
// scheduler every time, would cost more than the 1536-column products
// themselves. Workers are therefore started once, each locked to an OS thread
// pinned to its own core where the OS allows, and a For call hands them work
// through one atomic pointer they spin on. Workers that find no work for a
// while (between generations) stop spinning and park on a channel, so an idle
// app burns no CPU. Each loop is cut into a few chunks per worker that the
// workers take as they come free, so on a busy machine, where a worker's
// thread may wait milliseconds for a CPU, the others run its share.
package pool

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/cpuid/v2"
)

// spinFor is how long a worker (or the caller, waiting for the workers)
// polls before it starts yielding, and parkAfter how long it waits in all
// before parking. Between the For calls of one decode step the gap is a
// few microseconds of serial work (norms, RoPE, sampling), but a worker
// that finishes its last chunk first waits for the other side's chunk too:
// for Qwen2.5-1.5B's gate and up rows, 1/16 of 55 MB, 0.2-0.4 ms. A worker
// that parks there is woken through the OS (a futex wake and a thread
// switch, slower still when the VM's vCPU was halted), and the caller
// starts the next loop alone. With parking after 100 µs, decode on the
// 2-core Zen 3 VM parked 27 times a token; polling 2 ms instead made
// decode 1.05-1.07 × and the 17-token prefill 1.17 × as fast (5 rounds
// interleaved). Polling alone cost 0.83-0.94 × when a busy process shared
// the cores (a poller takes CPU from the thread it waits for), so after
// spinFor the poller yields its CPU between polls (osYield: sched_yield on
// Linux, which returns at once when no other thread wants the CPU): with a
// busy process beside, 1.02, 0.96 and 0.97 × the 100 µs pool in three A/Bs
// of 4 rounds, within the VM's noise. (Parking early only when the
// thread's involuntary context switches grow was tried: they grow ~100 a
// second on an idle machine too, so it parked as often as before.) An idle
// app still parks within parkAfter of its last loop and burns no CPU.
const (
	spinFor   = 100 * time.Microsecond
	parkAfter = 2 * time.Millisecond
)

// job is one For call: n indices cut into chunks contiguous pieces that
// the workers claim one at a time from a shared counter. It is immutable
// once published, apart from the counters, so workers may load it at any
// time without a data race.
type job struct {
	gen       uint64
	n, chunks int
	body      func(worker, lo, hi int)
	next      atomic.Int64 // chunks claimed so far (may run past chunks)
	done      atomic.Int64 // chunks finished (or dropped after a panic)
	closed    bool         // the pool is closing: workers exit
}

// claim takes the next chunk for the calling goroutine; ok is false once
// every chunk has been taken.
func (j *job) claim() (lo, hi int, ok bool) {
	c := int(j.next.Add(1) - 1)
	if c >= j.chunks {
		return 0, 0, false
	}
	lo, hi = Range(j.n, j.chunks, c)
	return lo, hi, true
}

// finished counts k chunks as done and reports whether they were the last.
func (j *job) finished(k int) bool { return j.done.Add(int64(k)) == int64(j.chunks) }

// sleeper is a spin-then-park flag shared by one waiter and one waker.
// States: awake (spinning or working) and parked (blocked on wake).
type sleeper struct {
	parked atomic.Bool
	wake   chan struct{} // capacity 1; one send per park that the waker saw
}

// Pool splits loops over a fixed number of workers. Worker 0 is the
// goroutine calling For; workers 1..Threads()-1 are persistent.
type Pool struct {
	threads int
	pinned  int // workers whose affinity was set

	mu      sync.Mutex // serialises For calls
	job     atomic.Pointer[job]
	gen     uint64
	workers []*sleeper // index 0 unused: the caller
	caller  sleeper    // the caller parks here when the workers are slow

	panicMu  sync.Mutex
	panicked *Panic // first worker panic of the current call

	closeOnce sync.Once
	exited    sync.WaitGroup

	stats counters
}

// counters are the pool's running totals (see Stats).
type counters struct {
	calls, taken, workerParks, callerParks atomic.Int64
	callerWait, inFor                      atomic.Int64 // ns
}

// Stats are what the workers did since the pool started (or ResetStats):
// how many parallel For calls ran, how long the caller waited at their
// ends for a worker still busy with its last chunk (the barrier's cost:
// a worker whose thread lost its CPU mid-chunk), how many chunks the
// caller ran beyond an even share because the workers were late or slow,
// and how often a waiting side parked after spinning spinFor.
type Stats struct {
	Calls       int64         `json:"calls"`        // For calls with more than one worker
	InFor       time.Duration `json:"in_for"`       // wall time inside those calls
	CallerWait  time.Duration `json:"caller_wait"`  // caller waiting for workers after its own ranges
	Taken       int64         `json:"taken"`        // chunks the caller ran beyond an even share
	WorkerParks int64         `json:"worker_parks"` // a worker spun spinFor without work and parked
	CallerParks int64         `json:"caller_parks"` // the caller spun spinFor waiting and parked
}

// Stats returns the counters since the start or the last ResetStats.
func (p *Pool) Stats() Stats {
	c := &p.stats
	return Stats{Calls: c.calls.Load(), InFor: time.Duration(c.inFor.Load()), CallerWait: time.Duration(c.callerWait.Load()), Taken: c.taken.Load(),
		WorkerParks: c.workerParks.Load(), CallerParks: c.callerParks.Load()}
}

// ResetStats zeroes the counters.
func (p *Pool) ResetStats() {
	c := &p.stats
	c.calls.Store(0)
	c.inFor.Store(0)
	c.callerWait.Store(0)
	c.taken.Store(0)
	c.workerParks.Store(0)
	c.callerParks.Store(0)
}

// New returns a pool of threads workers; threads ≤ 0 means DefaultThreads().
// Each persistent worker is locked to an OS thread and, on Linux, pinned to
// one of the CPUs the process may use; when pinning fails it runs unpinned.
//
// threads is capped at GOMAXPROCS: only that many goroutines run Go code at
// once, and a spinning worker holds its P, so an extra worker would wait for
// the 10 ms preemption tick (measured on 2 busy cores: 170-400 µs per empty
// For with 4 workers). Yielding in the spin does not help: a goroutine
// locked to its thread that yields hands its P over through the OS (it
// made an empty For with 2 workers slower, not faster, in our runs).
func New(threads int) *Pool { return newPool(Effective(threads)) }

// Effective is the number of workers New(threads) starts.
func Effective(threads int) int {
	if threads <= 0 {
		threads = DefaultThreads()
	}
	return min(threads, runtime.GOMAXPROCS(0))
}

// newPool is New without the GOMAXPROCS cap (tests use it to check the
// ranges with more workers than the machine has).
func newPool(threads int) *Pool {
	p := &Pool{threads: threads, workers: make([]*sleeper, threads)}
	p.caller.wake = make(chan struct{}, 1)
	p.job.Store(&job{})
	cpus := allowedCPUs()
	pinned := make(chan bool, threads)
	for i := 1; i < threads; i++ {
		s := &sleeper{wake: make(chan struct{}, 1)}
		p.workers[i] = s
		p.exited.Add(1)
		go p.work(i, s, cpuFor(cpus, i), pinned)
	}
	for i := 1; i < threads; i++ {
		if <-pinned {
			p.pinned++
		}
	}
	return p
}

// cpuFor picks worker i's CPU: the i-th allowed CPU, wrapping around. Linux
// numbers the first hardware thread of every core before the SMT siblings,
// so the first PhysicalCores entries are distinct cores. Worker 0 (the
// caller) is left unpinned and the scheduler gives it the remaining core.
func cpuFor(cpus []int, i int) int {
	if len(cpus) == 0 {
		return -1
	}
	return cpus[i%len(cpus)]
}

// DefaultThreads is the number of physical cores (hyperthreads share the
// core's load ports and FMA units, so they do not speed up these loops),
// bounded by the CPUs this process may run on.
func DefaultThreads() int {
	n := cpuid.CPU.PhysicalCores
	if n <= 0 || n > runtime.NumCPU() {
		n = runtime.NumCPU()
	}
	return max(n, 1)
}

// Threads reports the number of workers, the caller included.
func (p *Pool) Threads() int { return p.threads }

// Pinned reports how many persistent workers were pinned to a CPU (at most
// Threads()-1: the caller's thread is never pinned).
func (p *Pool) Pinned() int { return p.pinned }

// Range returns piece i of [0, n) cut into w pieces:
// [i·n/w, (i+1)·n/w), contiguous and within one element of equal.
func Range(n, w, i int) (lo, hi int) { return i * n / w, (i + 1) * n / w }

// chunksPerWorker is how many pieces For cuts a loop into per worker. With
// one piece each (a static split) a loop lasts as long as its slowest
// worker: on a shared machine, one whose core another program holds for a
// while. With 8, the other workers take over all but the piece the slow
// one is in, and a piece of the largest decode matrix of Qwen2.5-1.5B
// (8960 × 1536 bf16 rows split 16 ways) is ~1.7 MB, ~0.1 ms of reading.
const chunksPerWorker = 8

// Chunks is the number of pieces For(n, …) cuts [0, n) into on w workers.
func Chunks(n, w int) int { return min(n, chunksPerWorker*w) }

// For calls body(worker, lo, hi) on contiguous, disjoint chunks covering
// [0, n) (Chunks(n, min(n, Threads())) of them, chunk c being
// Range(n, chunks, c)) and returns when all have finished. Workers take
// the chunks one at a time from a shared counter, the caller first (it
// always runs chunk 0) and the persistent workers as they arrive, so a
// worker that is late or slow does less of the loop instead of holding the
// others at the barrier. worker names the goroutine running body: bodies
// that run at once have distinct workers in [0, Threads()), so per-worker
// scratch stays private, and one worker runs its chunks one after another.
//
// Callers pass rows, and each row is computed by one body call whichever
// chunk and worker it falls to, so results do not depend on the thread
// count or on timing. For must not be called from inside body (it would
// wait on itself); concurrent calls from several goroutines are
// serialised.
//
// A panic in body reaches the caller once every running chunk has
// finished (chunks not started are then dropped): the caller's own panic
// unwinds unchanged; a persistent worker's panic is re-raised in the
// caller as a *Panic carrying the worker's stack. After Close, For runs
// the whole range on the caller in one call.
func (p *Pool) For(n int, body func(worker, lo, hi int)) {
	if n <= 0 {
		return
	}
	w := min(p.threads, n)
	if w == 1 {
		body(0, 0, n)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.job.Load().closed {
		body(0, 0, n)
		return
	}
	p.gen++
	p.stats.calls.Add(1)
	start := time.Now()
	defer func() { p.stats.inFor.Add(int64(time.Since(start))) }()
	j := &job{gen: p.gen, n: n, chunks: Chunks(n, w), body: body}
	j.next.Store(1) // chunk 0 is the caller's
	p.panicked = nil
	p.job.Store(j)
	for i := 1; i < w; i++ {
		wakeIfParked(p.workers[i])
	}
	// Wait for the workers even if our own chunk panics, so no worker is
	// still writing into the caller's buffers while the panic unwinds.
	returned := false
	defer func() { p.waitDone(j, returned) }()
	lo, hi := Range(n, j.chunks, 0)
	body(0, lo, hi)
	j.finished(1)
	ran := 1 + p.runChunks(j, 0)
	if extra := ran - j.chunks/w; extra > 0 {
		p.stats.taken.Add(int64(extra))
	}
	returned = true
}

// runChunks runs chunks of j as worker until none is left to take and
// returns how many it ran. Idle, every worker claims its first chunk
// within ~100 ns of the call; on a busy machine a worker's thread may wait
// milliseconds for a CPU (measured on 2 shared cores: 20-200 µs per empty
// For), and the others run its share meanwhile. The caller's own panic
// unwinds from here (waitDone accounts for its chunk).
func (p *Pool) runChunks(j *job, worker int) (ran int) {
	for {
		lo, hi, ok := j.claim()
		if !ok {
			return ran
		}
		ran++
		if worker == 0 {
			j.body(0, lo, hi)
		} else {
			p.run(j, worker, lo, hi)
		}
		if j.finished(1) && worker != 0 {
			wakeIfParked(&p.caller)
		}
	}
}

// waitDone blocks until every chunk of j has finished, then re-raises the
// first worker panic if the caller's own chunks returned (otherwise the
// caller's panic is already unwinding and stays the one reported, and the
// chunks no worker has started are dropped rather than waited for).
func (p *Pool) waitDone(j *job, callerReturned bool) {
	if !callerReturned {
		taken := min(int(j.next.Swap(int64(j.chunks))), j.chunks)
		j.finished(j.chunks - taken + 1) // the chunks no one took, and the caller's own
	}
	if j.done.Load() != int64(j.chunks) {
		t0 := time.Now()
		spinUntil(&p.caller, &p.stats.callerParks, func() bool { return j.done.Load() == int64(j.chunks) })
		p.stats.callerWait.Add(int64(time.Since(t0)))
	}
	if pv := p.panicked; pv != nil && callerReturned {
		panic(pv)
	}
}

// work is the loop of persistent worker i.
func (p *Pool) work(i int, s *sleeper, cpu int, pinned chan<- bool) {
	defer p.exited.Done()
	runtime.LockOSThread() // never unlocked: the thread exits with the worker
	pinned <- cpu >= 0 && pinThread(cpu) == nil
	var last uint64
	for {
		var j *job
		spinUntil(s, &p.stats.workerParks, func() bool { j = p.job.Load(); return j.gen != last || j.closed })
		if j.closed {
			return
		}
		last = j.gen
		p.runChunks(j, i)
	}
}

// run calls the body of j for worker i and records its panic, if any.
func (p *Pool) run(j *job, i, lo, hi int) {
	defer func() {
		if r := recover(); r != nil {
			buf := make([]byte, 16<<10)
			buf = buf[:runtime.Stack(buf, false)]
			p.panicMu.Lock()
			if p.panicked == nil {
				p.panicked = &Panic{Worker: i, Value: r, Stack: buf}
			}
			p.panicMu.Unlock()
		}
	}()
	j.body(i, lo, hi)
}

// spinUntil polls ready for spinFor, then polls yielding the CPU between
// polls (where the OS can) until parkAfter, then parks s until a waker
// calls wakeIfParked(s), and repeats until ready reports true. Each park is
// counted in parks.
func spinUntil(s *sleeper, parks *atomic.Int64, ready func() bool) {
	for {
		if poll(ready) {
			return
		}
		// Park, then check again: a waker that published before seeing
		// the flag would not send, so the flag must be up before the check.
		parks.Add(1)
		s.parked.Store(true)
		if ready() {
			if s.parked.CompareAndSwap(true, false) {
				return
			}
			<-s.wake // a waker saw the flag and is sending: take it
			return
		}
		<-s.wake
	}
}

// poll reports whether ready turned true within parkAfter: polled flat out
// for spinFor, then with osYield between polls. Reading the clock costs
// ~20 ns; every 64 polls (8 when yielding) keeps it off the critical path.
func poll(ready func() bool) bool {
	start := time.Now()
	for k := 0; ; k++ {
		if ready() {
			return true
		}
		if k&63 == 63 && time.Since(start) > spinFor {
			break
		}
	}
	if !canYield {
		return false
	}
	for k := 0; ; k++ {
		if ready() {
			return true
		}
		osYield()
		if k&7 == 7 && time.Since(start) > parkAfter {
			return false
		}
	}
}

// wakeIfParked clears s's parked flag and, if it was up, sends the one
// wake-up the parked side waits for. Spinning waiters need nothing.
func wakeIfParked(s *sleeper) {
	if s.parked.Swap(false) {
		s.wake <- struct{}{}
	}
}

// Close stops the workers and waits for them to exit. It is idempotent; For
// still works afterwards, on the calling goroutine only.
func (p *Pool) Close() {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.gen++
		p.job.Store(&job{gen: p.gen, closed: true})
		for _, s := range p.workers[1:] {
			wakeIfParked(s)
		}
		p.exited.Wait()
	})
}

// Panic is a panic raised by body in a persistent worker, re-raised in the
// goroutine that called For.
type Panic struct {
	Worker int
	Value  any
	Stack  []byte // the worker's stack when it panicked
}

func (e *Panic) Error() string { return fmt.Sprintf("pool: worker %d panicked: %v", e.Worker, e.Value) }

// Unwrap gives the panic value when it is an error.
func (e *Panic) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}
