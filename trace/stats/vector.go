package stats

import (
	"math"

	"loupe/trace"
)

// VectorStats are the simple statistics of one vector (an embedding row).
type VectorStats struct {
	Norm, Min, Max, MeanAbs float64
}

// StatsOf computes the Euclidean norm √Σx², the minimum, the maximum and
// the mean |x| of values in float64 (NaN ignored; zeros for an empty row).
func StatsOf(values []float32) VectorStats {
	var s VectorStats
	n := 0
	s.Min, s.Max = math.Inf(1), math.Inf(-1)
	for _, v := range values {
		x := float64(v)
		if math.IsNaN(x) {
			continue
		}
		n++
		s.Norm += x * x
		s.MeanAbs += math.Abs(x)
		s.Min, s.Max = math.Min(s.Min, x), math.Max(s.Max, x)
	}
	if n == 0 {
		return VectorStats{}
	}
	s.Norm = math.Sqrt(s.Norm)
	s.MeanAbs /= float64(n)
	return s
}

// PoolRows averages consecutive rows of m (tokens × dim) into at most
// maxRows rows; starts[i] is the first token of output row i. NaN values
// are skipped; a column with none in its group gives NaN.
func PoolRows(m [][]float32, maxRows int) (out [][]float64, starts []int) {
	n := len(m)
	groups := min(n, max(1, maxRows))
	for g := range groups {
		lo, hi := g*n/groups, (g+1)*n/groups
		starts = append(starts, lo)
		out = append(out, meanRows(m[lo:hi]))
	}
	return out, starts
}

// meanRows is the column mean of rows, ignoring NaN.
func meanRows(rows [][]float32) []float64 {
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	sum, cnt := make([]float64, width), make([]int, width)
	for _, r := range rows {
		for j, v := range r {
			if x := float64(v); !math.IsNaN(x) {
				sum[j] += x
				cnt[j]++
			}
		}
	}
	for j := range sum {
		sum[j] = Ratio(sum[j], float64(cnt[j])) // NaN when the column had none
	}
	return sum
}

// LensLeads is the first layer (index from 0) whose top candidate is the
// final choice, and the first from which it stays on top through the last
// layer; -1 when never. choice is the token finally chosen (the last
// layer's top one when negative).
func LensLeads(lens []trace.LensLayer, choice int) (first, stays int) {
	if choice < 0 && len(lens) > 0 && len(lens[len(lens)-1].Top) > 0 {
		choice = lens[len(lens)-1].Top[0].ID
	}
	first, stays = -1, -1
	for l, ll := range lens {
		leads := len(ll.Top) > 0 && ll.Top[0].ID == choice
		if leads && first < 0 {
			first = l
		}
		switch {
		case leads && stays < 0:
			stays = l
		case !leads:
			stays = -1
		}
	}
	return first, stays
}
