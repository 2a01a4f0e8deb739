package sample

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// topSorted must be the first m ids of the whole vocabulary sorted by
// (logit desc, id asc), whatever the ties: logits on a coarse grid make
// many equal values, at the heap's threshold too.
func TestTopSortedIsPrefixOfFullSort(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	s := mustNew(t, Greedy(), 1)
	for trial := range 200 {
		n := 1 + r.IntN(3000)
		z := make([]float32, n)
		for i := range z {
			z[i] = float32(r.IntN(1 + trial%40)) // few distinct values: ties everywhere
			if r.IntN(50) == 0 {
				z[i] = float32(math.Inf(-1))
			}
		}
		want := make([]int32, n)
		for i := range want {
			want[i] = int32(i)
		}
		slices.SortStableFunc(want, func(a, b int32) int {
			switch {
			case z[a] > z[b]:
				return -1
			case z[a] < z[b]:
				return 1
			}
			return 0
		})
		for _, m := range []int{0, 1, 2, 10, 12, n / 9, n} {
			m = min(m, n)
			got := s.topSorted(z, m)
			if !slices.Equal(got, want[:m]) {
				t.Fatalf("trial %d, n %d, m %d: got %v, want %v", trial, n, m, got[:min(m, 12)], want[:min(m, 12)])
			}
		}
		if got, w := argmax(z), int(want[0]); got != w {
			t.Fatalf("trial %d: argmax %d, want %d", trial, got, w)
		}
	}
}
