package sample

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// refStages follows docs/spec/sampling.md §1–2 in float64 on a copy of z (already
// penalised): softmax after each stage of temperature, top-k (ties at the
// k-th value kept), top-p (smallest best-first set reaching p), min-p.
func refStages(z []float32, p Params) [][]float64 {
	V := len(z)
	keep := make([]bool, V)
	for i := range keep {
		keep[i] = !math.IsInf(float64(z[i]), -1)
	}
	zt := make([]float64, V)
	for i, v := range z {
		zt[i] = float64(v)
	}
	softmax := func() []float64 {
		m := math.Inf(-1)
		for i, v := range zt {
			if keep[i] {
				m = math.Max(m, v)
			}
		}
		out, sum := make([]float64, V), 0.0
		for i, v := range zt {
			if keep[i] {
				out[i] = math.Exp(v - m)
				sum += out[i]
			}
		}
		for i := range out {
			out[i] /= sum
		}
		return out
	}
	order := make([]int, V)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return z[order[a]] > z[order[b]] })
	stages := [][]float64{softmax()}
	for i := range zt {
		zt[i] /= p.Temperature
	}
	stages = append(stages, softmax())
	if p.TopK > 0 && p.TopK < V {
		tau := z[order[p.TopK-1]]
		for i := range keep {
			keep[i] = keep[i] && z[i] >= tau
		}
	}
	stages = append(stages, softmax())
	if p.TopP < 1 {
		pr, run := softmax(), 0.0
		for _, id := range order {
			if run >= p.TopP {
				keep[id] = false
			}
			run += pr[id]
		}
	}
	stages = append(stages, softmax())
	if p.MinP > 0 {
		pr := softmax()
		top := pr[order[0]]
		for i := range keep {
			keep[i] = keep[i] && pr[i] >= p.MinP*top
		}
	}
	return append(stages, softmax())
}

func TestStagesMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	z := make([]float32, 500)
	for i := range z {
		z[i] = float32(rng.NormFloat64() * 2)
	}
	for _, p := range []Params{
		{Temperature: 0.7, TopK: 20, TopP: 0.8, MinP: 0.05, RepetitionPenalty: 1},
		{Temperature: 1.3, TopP: 0.5, RepetitionPenalty: 1},
		{Temperature: 1, TopP: 1, MinP: 0.2, RepetitionPenalty: 1},
	} {
		s, err := New(p, 9)
		if err != nil {
			t.Fatal(err)
		}
		s.RecordStages(30)
		zz := append([]float32(nil), z...)
		id, top := s.Sample(zz, nil, 30)
		st := s.LastStages()
		if st == nil || st.Greedy || st.Drawn != id || len(st.Stage) != 5 || !(st.U >= 0 && st.U < 1) {
			t.Fatalf("%+v: stages %+v", p, st)
		}
		want := refStages(z, p)
		names := []string{"penalties", "temperature", "top-k", "top-p", "min-p"}
		for si, stage := range st.Stage {
			if stage.Name != names[si] {
				t.Fatalf("stage %d is %q, want %q", si, stage.Name, names[si])
			}
			for r, cid := range st.IDs {
				if d := math.Abs(stage.P[r] - want[si][cid]); d > 1e-6 {
					t.Fatalf("%+v stage %s rank %d (id %d): p %.7f, reference %.7f", p, stage.Name, r, cid, stage.P[r], want[si][cid])
				}
			}
		}
		// The last stage is the distribution Sample reports and draws from.
		last := st.Stage[4]
		for _, c := range top {
			r := indexOf(st.IDs, c.ID)
			if r < 0 || math.Abs(last.P[r]-c.P) > 1e-9 {
				t.Fatalf("%+v: Sample's top %+v, last stage %v", p, c, last.P)
			}
		}
		if r := indexOf(st.IDs, id); r >= 0 && last.P[r] == 0 {
			t.Fatalf("drawn id %d was removed by a stage", id)
		}
	}
}

func TestStagesGreedy(t *testing.T) {
	s, _ := New(Params{TopP: 1, RepetitionPenalty: 1.3}, 1)
	s.RecordStages(5)
	z := []float32{1, 3, 2, -1, 0.5, 2.9}
	id, top := s.Sample(append([]float32(nil), z...), []int{1}, 5)
	st := s.LastStages()
	if !st.Greedy || len(st.Stage) != 1 || !st.Stage[0].On || st.Drawn != id {
		t.Fatalf("greedy stages %+v", st)
	}
	// Penalised: 3/1.3 ≈ 2.31 < 2.9, so id 5 leads.
	if st.IDs[0] != 5 || id != 5 || top[0].ID != 5 || math.Abs(st.Stage[0].P[0]-top[0].P) > 1e-6 {
		t.Fatalf("ids %v p %v, top %+v", st.IDs, st.Stage[0].P, top)
	}
	s.RecordStages(0)
	s.Sample(append([]float32(nil), z...), nil, 5)
	if s.LastStages() != nil {
		t.Error("recording off still records")
	}
}

func indexOf(ids []int, id int) int {
	for i, v := range ids {
		if v == id {
			return i
		}
	}
	return -1
}
