package engine

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestProjectAllIsProject: q, k, v (and gate, up) run as one parallel loop
// give the bits of one loop per matrix, at every thread count (the row
// ranges then cross the matrices' boundaries at different rows).
func TestProjectAllIsProject(t *testing.T) {
	cfg := tinyConfig()
	for _, bf16 := range []bool{false, true} {
		for _, threads := range []int{1, 2, 3, 5} {
			m := newPoolModel(cfg, bf16, threads)
			lw := &m.w.layers[0]
			x := make([]float32, cfg.HiddenSize)
			rng := rand.New(rand.NewPCG(7, uint64(threads)))
			for i := range x {
				x[i] = float32(rng.NormFloat64())
			}
			mats := []*mat{&lw.wq, &lw.wk, &lw.wv, &lw.wGate, &lw.wUp}
			var want, got [][]float32
			var ps []projection
			for _, w := range mats {
				want = append(want, make([]float32, w.rows))
				got = append(got, make([]float32, w.rows))
				m.project(w, want[len(want)-1], x, 1)
				ps = append(ps, projection{w, got[len(got)-1]})
			}
			m.projectAll(x, 1, ps...)
			for i := range mats {
				if !slices.Equal(got[i], want[i]) {
					t.Fatalf("bf16 %v, %d threads: matrix %d differs", bf16, threads, i)
				}
			}
			m.Close()
		}
	}
}

// newPoolModel is a tiny random model with threads workers (capped at
// GOMAXPROCS by the pool).
func newPoolModel(cfg Config, bf16 bool, threads int) *Model {
	return memModel(cfg, randomTensors(cfg, 3), bf16, threads)
}
