package sample

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

const qwenVocab = 151936

func params(mod func(*Params)) Params {
	p := Greedy()
	if mod != nil {
		mod(&p)
	}
	return p
}

func mustNew(t testing.TB, p Params, seed uint64) *Sampler {
	t.Helper()
	s, err := New(p, seed)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func randomLogits(r *rand.Rand, v int, scale float64) []float32 {
	z := make([]float32, v)
	for i := range z {
		z[i] = float32(r.NormFloat64() * scale)
	}
	return z
}

// softmax64 is the float64 oracle: exp(z − max) / Σ.
func softmax64(z []float64) []float64 {
	m := math.Inf(-1)
	for _, v := range z {
		m = math.Max(m, v)
	}
	out := make([]float64, len(z))
	s := 0.0
	for i, v := range z {
		out[i] = math.Exp(v - m)
		s += out[i]
	}
	for i := range out {
		out[i] /= s
	}
	return out
}

func widen(z []float32) []float64 {
	out := make([]float64, len(z))
	for i, v := range z {
		out[i] = float64(v)
	}
	return out
}

func TestValidate(t *testing.T) {
	if err := Greedy().Validate(); err != nil {
		t.Fatalf("Greedy(): %v", err)
	}
	bad := []struct {
		name string
		mod  func(*Params)
	}{
		{"temperature", func(p *Params) { p.Temperature = -0.1 }},
		{"temperature", func(p *Params) { p.Temperature = math.NaN() }},
		{"temperature", func(p *Params) { p.Temperature = math.Inf(1) }},
		{"top_k", func(p *Params) { p.TopK = -1 }},
		{"top_p", func(p *Params) { p.TopP = 0 }},
		{"top_p", func(p *Params) { p.TopP = 1.01 }},
		{"top_p", func(p *Params) { p.TopP = math.NaN() }},
		{"min_p", func(p *Params) { p.MinP = -0.01 }},
		{"min_p", func(p *Params) { p.MinP = 1.5 }},
		{"presence_penalty", func(p *Params) { p.PresencePenalty = 2.5 }},
		{"frequency_penalty", func(p *Params) { p.FrequencyPenalty = -3 }},
		{"repetition_penalty", func(p *Params) { p.RepetitionPenalty = 0 }},
		{"repetition_penalty", func(p *Params) { p.RepetitionPenalty = -1 }},
	}
	for _, c := range bad {
		err := params(c.mod).Validate()
		if err == nil || !errors.Is(err, ErrSettings) || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%s: err = %v, want ErrSettings naming it", c.name, err)
		}
		if _, err := New(params(c.mod), 1); err == nil {
			t.Errorf("%s: New accepted bad params", c.name)
		}
	}
	good := params(func(p *Params) {
		p.Temperature, p.TopK, p.TopP, p.MinP, p.PresencePenalty, p.FrequencyPenalty, p.RepetitionPenalty = 0.7, 20, 0.8, 0.05, 1.5, -2, 1.1
	})
	if err := good.Validate(); err != nil {
		t.Errorf("good params: %v", err)
	}
}

func TestGreedyIsArgmax(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	s := mustNew(t, Greedy(), 1)
	for range 50 {
		z := randomLogits(r, 1000, 3)
		want := 0
		for i, v := range z {
			if v > z[want] {
				want = i
			}
		}
		if id, _ := s.Sample(z, nil, 0); id != want {
			t.Fatalf("greedy = %d, want argmax %d", id, want)
		}
	}
	if id, _ := s.Sample([]float32{1, 5, 5, -2}, nil, 0); id != 1 {
		t.Errorf("tie: greedy = %d, want the lowest index 1", id)
	}
	if id, _ := s.Sample([]float32{float32(math.NaN()), 0, -1}, nil, 0); id != 1 {
		t.Errorf("NaN logit: greedy = %d, want 1", id)
	}
	if id, top := s.Sample(nil, nil, 5); id != -1 || top != nil {
		t.Errorf("empty logits: %d %v", id, top)
	}
}

// Greedy top-n must be the full float64 softmax of the logits (T = 1).
func TestGreedyTopNMatchesSoftmax(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	z := randomLogits(r, qwenVocab, 4)
	z[77], z[78] = 20, 20 // a tie at the top: lower id first
	want := softmax64(widen(z))
	for _, stages := range []int{0, 5, 12} { // with stages, the top-n reuses their softmax and, at 12, their ranking
		s := mustNew(t, Greedy(), 1)
		s.RecordStages(stages)
		id, top := s.Sample(append([]float32(nil), z...), nil, 10)
		if id != 77 || len(top) != 10 || top[0].ID != 77 || top[1].ID != 78 {
			t.Fatalf("stages %d: id %d, top %v", stages, id, top)
		}
		checkTop(t, top, want)
		if got := s.ChosenP(); math.Abs(got-want[77]) > 1e-6*want[77] {
			t.Fatalf("stages %d: ChosenP %g, softmax %g", stages, got, want[77])
		}
	}
}

// A +∞ logit takes all the mass (two of them share it): the greedy top-n
// must not compute ∞ − ∞.
func TestGreedyTopNInfiniteLogit(t *testing.T) {
	inf := float32(math.Inf(1))
	s := mustNew(t, Greedy(), 1)
	for _, c := range []struct {
		z    []float32
		want []Candidate
	}{
		{[]float32{0, inf, 3, -1}, []Candidate{{1, 1}, {2, 0}}},
		{[]float32{inf, 2, inf}, []Candidate{{0, 0.5}, {2, 0.5}}},
	} {
		id, top := s.Sample(append([]float32(nil), c.z...), nil, 2)
		if id != c.want[0].ID || len(top) != 2 || top[0] != c.want[0] || top[1] != c.want[1] {
			t.Errorf("%v: id %d, top %v, want %v", c.z, id, top, c.want)
		}
	}
}

// checkTop: sorted by P desc then id, each P equal to the oracle within
// 1e-6, sum ≤ 1, and no id outside the list more probable than the last.
func checkTop(t *testing.T, top []Candidate, want []float64) {
	t.Helper()
	sum := 0.0
	for i, c := range top {
		if math.Abs(c.P-want[c.ID]) > 1e-6 {
			t.Errorf("P[%d] = %.9g, oracle %.9g", c.ID, c.P, want[c.ID])
		}
		if i > 0 && (c.P > top[i-1].P || c.P == top[i-1].P && c.ID < top[i-1].ID) {
			t.Errorf("candidates out of order at %d: %v", i, top[:i+1])
		}
		sum += c.P
	}
	if sum > 1+1e-9 {
		t.Errorf("top-n mass %g > 1", sum)
	}
	in := map[int]bool{}
	for _, c := range top {
		in[c.ID] = true
	}
	last := top[len(top)-1].P
	for id, p := range want {
		if !in[id] && p > last+1e-12 {
			t.Fatalf("id %d (P %g) missing from top-n ending at %g", id, p, last)
		}
	}
}

// Each filter against probabilities computed by hand from z = [1, 2, 3, 4]:
// e^1 … e^4 = 2.718…, 7.389…, 20.09…, 54.60…
func TestFiltersByHand(t *testing.T) {
	e := func(x float64) float64 { return math.Exp(x) }
	z := []float32{1, 2, 3, 4}
	two := []float64{0, 0, e(3) / (e(3) + e(4)), e(4) / (e(3) + e(4))} // 0.2689, 0.7311
	s4 := e(1) + e(2) + e(3) + e(4)
	cases := []struct {
		name string
		mod  func(*Params)
		z    []float32
		want []float64
	}{
		{"T=1 only", func(p *Params) { p.Temperature = 1 }, z, []float64{e(1) / s4, e(2) / s4, e(3) / s4, e(4) / s4}},
		{"T=2", func(p *Params) { p.Temperature = 2 }, z, softmax64([]float64{0.5, 1, 1.5, 2})},
		{"top_k 2", func(p *Params) { p.Temperature, p.TopK = 1, 2 }, z, two},
		{"top_k ≥ V", func(p *Params) { p.Temperature, p.TopK = 1, 9 }, z, []float64{e(1) / s4, e(2) / s4, e(3) / s4, e(4) / s4}},
		{"top_k 1 with a tie", func(p *Params) { p.Temperature, p.TopK = 1, 1 }, []float32{1, 3, 3, 2}, []float64{0, 0.5, 0.5, 0}},
		// P(4) = 0.6439 < 0.7, so the 3 that crosses 0.7 stays
		{"top_p 0.7", func(p *Params) { p.Temperature, p.TopP = 1, 0.7 }, z, two},
		{"top_p 0.6", func(p *Params) { p.Temperature, p.TopP = 1, 0.6 }, z, []float64{0, 0, 0, 1}},
		{"top_p 0.9", func(p *Params) { p.Temperature, p.TopP = 1, 0.9 }, z, []float64{0, e(2) / (s4 - e(1)), e(3) / (s4 - e(1)), e(4) / (s4 - e(1))}},
		// m·P_max = 0.3·0.6439 = 0.193: P(3) = 0.2369 stays, P(2) = 0.0871 goes
		{"min_p 0.3", func(p *Params) { p.Temperature, p.MinP = 1, 0.3 }, z, two},
		{"min_p 0.4", func(p *Params) { p.Temperature, p.MinP = 1, 0.4 }, z, []float64{0, 0, 0, 1}},
		// T = 0.5 first: z/T = 2, 4, 6, 8; then top_k 3 drops id 0; top_p 0.95
		// over e^4, e^6, e^8: P(8) = 0.8668, +P(6) = 0.9841 → {3, 2}
		{"T then top_k then top_p", func(p *Params) { p.Temperature, p.TopK, p.TopP = 0.5, 3, 0.95 }, z, []float64{0, 0, e(6) / (e(6) + e(8)), e(8) / (e(6) + e(8))}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := mustNew(t, params(c.mod), 7)
			_, top := s.Sample(append([]float32(nil), c.z...), nil, len(c.z))
			got := make([]float64, len(c.z))
			for _, cand := range top {
				got[cand.ID] = cand.P
			}
			for i := range got {
				if math.Abs(got[i]-c.want[i]) > 1e-9 {
					t.Fatalf("P = %v, want %v", got, c.want)
				}
			}
		})
	}
}

func TestPenaltiesBySpec(t *testing.T) {
	z := []float32{2, -2, 1, 0.5, 3}
	// history: prompt [0, 1, 1, 4], generated [2, 2, 3]
	history := []int{0, 1, 1, 4, 2, 2, 3}
	p := params(func(p *Params) { p.RepetitionPenalty, p.FrequencyPenalty, p.PresencePenalty = 2, 0.5, 0.25 })
	s := mustNew(t, p, 1)
	s.SetPromptLen(4)
	// repetition on every distinct id of the history (0,1,4,2,3), once each:
	// 2/2, −2·2, 1/2, 0.5/2, 3/2; then id 2 (c = 2) −1 −0.25, id 3 (c = 1) −0.5 −0.25
	want := []float64{1, -4, 0.5 - 1 - 0.25, 0.25 - 0.5 - 0.25, 1.5}
	id, top := s.Sample(append([]float32(nil), z...), history, len(z))
	if id != 4 {
		t.Errorf("greedy id = %d, want 4", id)
	}
	checkTop(t, top, softmax64(want))

	// Without SetPromptLen the prompt counts for frequency/presence too.
	s = mustNew(t, params(func(p *Params) { p.PresencePenalty = 1 }), 1)
	_, top = s.Sample(append([]float32(nil), z...), []int{4}, 5)
	checkTop(t, top, softmax64([]float64{2, -2, 1, 0.5, 2}))
	// SampleWith: out-of-range ids are ignored.
	_, top = s.SampleWith(append([]float32(nil), z...), []int{-1, 99}, []int{99, 4}, 5)
	checkTop(t, top, softmax64([]float64{2, -2, 1, 0.5, 2}))
}

// refSpec is an independent float64 implementation of docs/spec/sampling.md for
// random tests: full sort, transformers' ascending-cumsum top_p.
func refSpec(z []float32, p Params, u float64) (int, []float64) {
	v := make([]float64, len(z))
	for i, x := range z {
		v[i] = float64(float32(x / float32(p.Temperature)))
	}
	alive := make([]bool, len(v))
	for i := range alive {
		alive[i] = true
	}
	ids := make([]int, len(v))
	for i := range ids {
		ids[i] = i
	}
	sort.SliceStable(ids, func(a, b int) bool { return v[ids[a]] > v[ids[b]] })
	if p.TopK > 0 && p.TopK < len(v) {
		tau := v[ids[p.TopK-1]]
		for i := range v {
			alive[i] = v[i] >= tau
		}
	}
	prob := func() []float64 {
		m := math.Inf(-1)
		for i := range v {
			if alive[i] {
				m = math.Max(m, v[i])
			}
		}
		out, s := make([]float64, len(v)), 0.0
		for i := range v {
			if alive[i] {
				out[i] = math.Exp(v[i] - m)
				s += out[i]
			}
		}
		for i := range out {
			out[i] /= s
		}
		return out
	}
	if p.TopP < 1 {
		pr, c := prob(), 0.0
		for j := len(ids) - 1; j >= 0; j-- { // ascending
			c += pr[ids[j]]
			if c <= 1-p.TopP && j > 0 {
				alive[ids[j]] = false
			}
		}
	}
	if p.MinP > 0 {
		pr := prob()
		for i := range v {
			if pr[i] < p.MinP*pr[ids[0]] {
				alive[i] = false
			}
		}
	}
	pr := prob()
	run, last := 0.0, -1
	for _, id := range ids {
		if !alive[id] {
			continue
		}
		run += pr[id]
		last = id
		if run > u {
			return id, pr
		}
	}
	return last, pr
}

// The sampler must pick exactly the token the spec procedure picks with the
// same uniform numbers (drawn here by the test's own SplitMix64).
func TestDrawMatchesSpec(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	settings := []Params{
		params(func(p *Params) { p.Temperature = 1 }),
		params(func(p *Params) { p.Temperature, p.TopK, p.TopP = 0.7, 20, 0.8 }),
		params(func(p *Params) { p.Temperature, p.TopP = 1.3, 0.95 }),
		params(func(p *Params) { p.Temperature, p.MinP = 0.9, 0.05 }),
		params(func(p *Params) { p.Temperature, p.TopK, p.TopP, p.MinP = 0.6, 50, 0.9, 0.02 }),
	}
	outside := 0 // draws of a token that is not among the 10 candidates returned
	for si, p := range settings {
		seed := uint64(100 + si)
		s := mustNew(t, p, seed)
		ref := splitMix64{s: seed}
		for step := range 40 {
			z := randomLogits(r, 5000, 2.5)
			wantID, pr := refSpec(z, p, ref.uniform())
			id, top := s.Sample(append([]float32(nil), z...), nil, 10)
			if id != wantID {
				t.Fatalf("settings %d step %d: id %d, spec %d", si, step, id, wantID)
			}
			checkTop(t, top, pr)
			// The drawn token's probability, whether or not it is listed.
			if got := s.ChosenP(); !(math.Abs(got-pr[id]) <= 1e-9*pr[id]) {
				t.Fatalf("settings %d step %d: ChosenP %.17g, spec %.17g", si, step, got, pr[id])
			}
			if !slices.ContainsFunc(top, func(c Candidate) bool { return c.ID == id }) {
				outside++
			}
		}
	}
	if outside == 0 {
		t.Fatal("no draw fell outside the top 10: the test does not reach that case")
	}
	t.Logf("%d of %d draws outside the top 10", outside, 40*len(settings))
}

func TestSeeds(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	z := randomLogits(r, 1000, 0.3) // flat-ish
	p := params(func(p *Params) { p.Temperature = 1 })
	run := func(seed uint64) string {
		s := mustNew(t, p, seed)
		var b strings.Builder
		for range 64 {
			id, _ := s.Sample(append([]float32(nil), z...), nil, 0)
			fmt.Fprintf(&b, "%d,", id)
		}
		return b.String()
	}
	seen := map[string]uint64{}
	for seed := uint64(0); seed < 20; seed++ {
		a := run(seed)
		if b := run(seed); a != b {
			t.Fatalf("seed %d: two runs differ", seed)
		}
		if other, dup := seen[a]; dup {
			t.Fatalf("seeds %d and %d give the same sequence", other, seed)
		}
		seen[a] = seed
	}
}

// SplitMix64 known answer: the first outputs for seed 0 are the published
// reference values of the algorithm.
func TestSplitMix64KnownAnswer(t *testing.T) {
	r := splitMix64{}
	want := []uint64{0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F}
	for i, w := range want {
		if got := r.next(); got != w {
			t.Fatalf("output %d = %#x, want %#x", i, got, w)
		}
	}
}

func BenchmarkSample(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 10))
	z := randomLogits(r, qwenVocab, 3)
	work := make([]float32, len(z))
	for _, c := range []struct {
		name   string
		p      Params
		stages int
	}{
		{"greedy", Greedy(), 0},
		{"greedy_stages12", Greedy(), 12}, // what the window asks for
		{"T0.7_topp0.8_stages12", params(func(p *Params) { p.Temperature, p.TopP = 0.7, 0.8 }), 12},
		{"T0.7_topk20_topp0.8", params(func(p *Params) { p.Temperature, p.TopK, p.TopP = 0.7, 20, 0.8 }), 0},
		{"T0.7_topp0.8", params(func(p *Params) { p.Temperature, p.TopP = 0.7, 0.8 }), 0},
		{"T1_untruncated", params(func(p *Params) { p.Temperature = 1 }), 0},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := mustNew(b, c.p, 1)
			s.RecordStages(c.stages)
			for b.Loop() {
				copy(work, z)
				s.Sample(work, nil, 10)
			}
		})
	}
}

// Softmax over a vocabulary: e / Σe within 1e-5 of the float64 softmax
// (relative), in place or not; a NaN logit gets nothing.
func TestSoftmaxAgainstFloat64(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	z := randomLogits(r, qwenVocab, 4)
	z[11] = float32(math.NaN())
	ref := slices.Clone(z)
	ref[11] = float32(math.Inf(-1))
	want := softmax64(widen(ref))
	e := make([]float32, len(z))
	total := Softmax(e, z)
	inPlace := slices.Clone(z)
	if t2 := Softmax(inPlace, inPlace); t2 != total {
		t.Errorf("in place: Σ %v, want %v", t2, total)
	}
	for i, w := range want {
		if got := float64(e[i]) / total; math.Abs(got-w) > 1e-5*w {
			t.Fatalf("p[%d] = %g, float64 softmax %g", i, got, w)
		}
	}
	if e[11] != 0 || z[11] == z[11] {
		t.Errorf("NaN logit: p %v; z must be left as it was (%v)", e[11], z[11])
	}
}
