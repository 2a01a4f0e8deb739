// Package pool runs data-parallel loops on a fixed set of workers.
//
// Provisional implementation: a goroutine per worker per call. The engine
// speed work replaces it with persistent workers locked to OS threads and a
// spinning barrier; the API stays.
package pool

import "sync"

// Pool splits loops over a fixed number of workers.
type Pool struct{ threads int }

// New returns a pool of threads workers (at least 1).
func New(threads int) *Pool {
	if threads < 1 {
		threads = 1
	}
	return &Pool{threads: threads}
}

// Threads reports the number of workers.
func (p *Pool) Threads() int { return p.threads }

// For calls body(worker, lo, hi) on contiguous, disjoint ranges covering
// [0, n), one range per worker, and returns when all have finished.
func (p *Pool) For(n int, body func(worker, lo, hi int)) {
	if n <= 0 {
		return
	}
	w := min(p.threads, n)
	if w == 1 {
		body(0, 0, n)
		return
	}
	var wg sync.WaitGroup
	for i := range w {
		lo, hi := i*n/w, (i+1)*n/w
		wg.Add(1)
		go func() { defer wg.Done(); body(i, lo, hi) }()
	}
	wg.Wait()
}

// Close stops the workers. The pool must not be used afterwards.
func (p *Pool) Close() {}
