package stats

import (
	"math"

	"loupe/trace"
)

// Mixture-of-experts numbers: what a token reads of an MoE model's
// experts, and how much of them a run has touched (docs/spec/moe.md §5).

// ExpertBytes is what one decode step reads of the weights (the shared
// weights, the router and k experts per MoE layer) and what a dense model
// of the same parameters would read (all E experts of every MoE layer).
// Both are 0 for a model without experts or without a file.
func ExpertBytes(m trace.ModelInfo) (read, dense int64) {
	if m.Experts == 0 || m.WeightBytesPerTok == 0 {
		return 0, 0
	}
	idle := int64(m.MoELayers) * int64(m.Experts-m.ExpertsPerToken) * m.ExpertBytes
	return m.WeightBytesPerTok, m.WeightBytesPerTok + idle
}

// Touched is one MoE layer's experts chosen at least once over a run's
// first tokens: how many and their share of the layer's experts.
type Touched struct {
	Layer int
	Count int
	Share float64
}

// ExpertsTouched counts, per MoE layer, the distinct experts the first n
// steps chose (n ≤ 0 or past the end: all steps); experts is E. Layers in
// the order the steps record them.
func ExpertsTouched(steps []trace.Step, n, experts int) []Touched {
	if n <= 0 || n > len(steps) {
		n = len(steps)
	}
	var out []Touched
	seen := map[int]map[int]bool{}
	index := map[int]int{}
	for _, st := range steps[:n] {
		for _, r := range st.Experts {
			if seen[r.Layer] == nil {
				seen[r.Layer] = map[int]bool{}
				index[r.Layer] = len(out)
				out = append(out, Touched{Layer: r.Layer})
			}
			for _, e := range r.IDs {
				seen[r.Layer][e] = true
			}
		}
	}
	for i := range out {
		out[i].Count = len(seen[out[i].Layer])
		if experts > 0 {
			out[i].Share = float64(out[i].Count) / float64(experts)
		}
	}
	return out
}

// TouchedCurve is the mean over MoE layers of the share of experts
// touched after 1, 2, …, len(steps) tokens.
func TouchedCurve(steps []trace.Step, experts int) []float64 {
	out := make([]float64, 0, len(steps))
	seen := map[[2]int]bool{}
	layers := map[int]bool{}
	for _, st := range steps {
		for _, r := range st.Experts {
			layers[r.Layer] = true
			for _, e := range r.IDs {
				seen[[2]int{r.Layer, e}] = true
			}
		}
		share := math.NaN()
		if len(layers) > 0 && experts > 0 {
			share = float64(len(seen)) / float64(len(layers)*experts)
		}
		out = append(out, share)
	}
	return out
}

// UniformTouched is the share of a layer's E experts that n tokens touch
// on average when each picks k of them uniformly and independently:
// 1 − (1 − k/E)^n (real routers are skewed, so they touch fewer).
func UniformTouched(experts, k, n int) float64 {
	if experts <= 0 {
		return math.NaN()
	}
	return 1 - math.Pow(1-float64(k)/float64(experts), float64(n))
}

// RoutingGrid is one token's router probabilities as layers × experts
// (row i is routes[i]), and the chosen cells as (row, expert) pairs.
func RoutingGrid(routes []trace.Routing) (grid [][]float64, chosen [][2]int) {
	grid = make([][]float64, len(routes))
	for i, r := range routes {
		grid[i] = make([]float64, len(r.Probs))
		for e, p := range r.Probs {
			grid[i][e] = float64(p)
		}
		for _, e := range r.IDs {
			chosen = append(chosen, [2]int{i, e})
		}
	}
	return grid, chosen
}

// RoutingMass is the share of the router's probability on the chosen
// experts, Σ_chosen p (1 when nothing is left out).
func RoutingMass(r trace.Routing) float64 {
	var s float64
	for _, e := range r.IDs {
		if e >= 0 && e < len(r.Probs) {
			s += float64(r.Probs[e])
		}
	}
	return s
}
