// Package stats is the one home of the numbers Loupe derives from a run:
// attention grids (one source map, its Gated DeltaNet rows labelled once)
// and their means, the attention sink, top-k, the heads that look most at
// a token, the strongest head, a token's probability, the alignment and
// probability deltas of two runs, MLP magnitudes, an embedding row's
// statistics, pooled KV-cache rows, the logit lens's lead, parameter and
// KV-cache sizes, decode bandwidth, the softmax of a figure's scores, the
// median, and Ratio, whose one answer for x/0 is NaN (unknown).
// The window (views), the exported figures (viz), the CSV exports (app)
// and the command line all call it, so a number is computed one way.
// It is headless: it imports only trace and the standard library.
package stats

import (
	"fmt"
	"math"

	"loupe/trace"
)

// AttentionAt finds the captured attention row of query position q.
func AttentionAt(att []trace.Attention, q int) (trace.Attention, bool) {
	for _, a := range att {
		if a.QueryPos == q {
			return a, true
		}
	}
	return trace.Attention{}, false
}

// SourceGrid is the layers × heads share of attention that the query pays
// to key position s: g[l][h] = Weights[l][h][s]. A key after the query
// gets 0 (the mask is causal: the head paid it nothing); a key at or
// before the query that the head's row lacks is NaN (unknown, never drawn
// as 0). A layer without heads (a Gated DeltaNet layer) is an empty row;
// SourceMapOf pads and labels it.
func SourceGrid(a trace.Attention, s int) [][]float64 {
	g := make([][]float64, len(a.Weights))
	for l, heads := range a.Weights {
		g[l] = make([]float64, len(heads))
		for h, w := range heads {
			switch {
			case s >= 0 && s < len(w):
				g[l][h] = float64(w[s])
			case s <= a.QueryPos:
				g[l][h] = math.NaN()
			}
		}
	}
	return g
}

// The labels written across a grid row that has no attention map.
const (
	DeltaNetRowLabel = "Gated DeltaNet · no attention map"
	NoMapRowLabel    = "no attention map"
)

// RowLabel names grid row l when it has no attention map: a Gated DeltaNet
// layer says so, any other empty row (a capture without that layer) says
// only that it has no map.
func RowLabel(info trace.ModelInfo, l int) string {
	if !info.HasAttention(l) {
		return DeltaNetRowLabel
	}
	return NoMapRowLabel
}

// SourceMap is the grid every panel, figure and export shows for one
// query and one source: Cells[layer][head] the share of attention, every
// row as wide as the widest, the rows of layers without heads NaN and
// named in Gaps.
type SourceMap struct {
	Cells               [][]float64
	Gaps                map[int]string // layer → RowLabel; nil when every layer has heads
	QueryPos, SourcePos int
}

// SourceMapOf builds the SourceMap of source src from a captured
// attention (Weights[layer][head][key]); src must lie in 0..QueryPos.
func SourceMapOf(a trace.Attention, src int, info trace.ModelInfo) (SourceMap, error) {
	if src < 0 || src > a.QueryPos {
		return SourceMap{}, fmt.Errorf("attention of query %d: source %d out of range 0..%d", a.QueryPos, src, a.QueryPos)
	}
	cells, gaps := PadGaps(SourceGrid(a, src), info)
	return SourceMap{Cells: cells, Gaps: gaps, QueryPos: a.QueryPos, SourcePos: src}, nil
}

// PadGaps pads the rows of layers without heads to the grid's width with
// NaN and returns them as gaps labelled by RowLabel. g is modified.
func PadGaps(g [][]float64, info trace.ModelInfo) ([][]float64, map[int]string) {
	cols := 0
	for _, row := range g {
		cols = max(cols, len(row))
	}
	var gaps map[int]string
	for l, row := range g {
		if len(row) > 0 {
			continue
		}
		if gaps == nil {
			gaps = map[int]string{}
		}
		gaps[l] = RowLabel(info, l)
		g[l] = make([]float64, cols)
		for h := range g[l] {
			g[l][h] = math.NaN()
		}
	}
	return g, gaps
}

// finite reports whether x is neither NaN nor ±Inf.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Mean is the mean of the finite values of xs, NaN if there is none.
func Mean[F float32 | float64](xs []F) float64 {
	var s float64
	n := 0
	for _, x := range xs {
		if v := float64(x); finite(v) {
			s += v
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// RowMeans is the mean of each row of a layers × heads grid: the
// per-layer mean over heads, m[l] = (1/H) Σ_h g[l][h], skipping NaN; a
// layer with no finite value (a Gated DeltaNet layer has no heads) is NaN.
func RowMeans[F float32 | float64](g [][]F) []float64 {
	m := make([]float64, len(g))
	for l, row := range g {
		m[l] = Mean(row)
	}
	return m
}

// GridMean is the mean over every finite cell (every head of every layer
// counts once), NaN for a grid without one.
func GridMean[F float32 | float64](g [][]F) float64 {
	var all []F
	for _, row := range g {
		all = append(all, row...)
	}
	return Mean(all)
}

// SourceShare is the mean, over every layer and head, of the attention
// the query pays to key position s.
func SourceShare(a trace.Attention, s int) float64 { return GridMean(SourceGrid(a, s)) }

// SinkShare is the attention sink: the mean share every head of every
// layer gives to the first token (43 % on "My" in the article); NaN when
// nothing was captured.
func SinkShare(a trace.Attention) float64 { return SourceShare(a, 0) }

// StrongestSource is the key, other than the first token and the query
// itself, with the largest mean share over all heads; 0 when there is
// none; ties go to the earlier key. The sum over heads stands for the mean
// (every key has the same count of cells). One pass over the weights: on
// a 3,139-token prompt the grid of every key was 3,139 × 28 allocations a
// token.
func StrongestSource(a trace.Attention) int {
	if a.QueryPos < 2 {
		return 0
	}
	sum := make([]float64, a.QueryPos)
	for _, heads := range a.Weights {
		for _, w := range heads {
			for s := 1; s < min(len(w), a.QueryPos); s++ {
				sum[s] += float64(w[s])
			}
		}
	}
	best, bestV := 0, -1.0
	for s := 1; s < a.QueryPos; s++ {
		if sum[s] > bestV {
			best, bestV = s, sum[s]
		}
	}
	return best
}

// ScaleMax is the top of a colour scale for shares: the largest finite
// cell rounded up to a multiple of 5 %, at least 5 % (a grid of small
// shares still shows its structure) and at most 100 %.
func ScaleMax[F float32 | float64](g [][]F) float64 {
	top := 0.0
	for _, row := range g {
		for _, v := range row {
			if x := float64(v); finite(x) {
				top = max(top, x)
			}
		}
	}
	// The tolerance keeps 0.15 (3.0000000000000004 twentieths) at 0.15.
	return max(0.05, min(1, math.Ceil(top*20-1e-9)/20))
}

// MaxAbs is the largest finite |v| of a grid, 0 for an empty one.
func MaxAbs(g [][]float64) float64 {
	m := 0.0
	for _, row := range g {
		for _, v := range row {
			if finite(v) {
				m = max(m, v, -v)
			}
		}
	}
	return m
}

// GridDiff is b − a cell by cell, in the shape of a (0 where b has no
// such cell).
func GridDiff(a, b [][]float64) [][]float64 {
	d := make([][]float64, len(a))
	for l := range a {
		d[l] = make([]float64, len(a[l]))
		for h := range a[l] {
			if l < len(b) && h < len(b[l]) {
				d[l][h] = b[l][h] - a[l][h]
			}
		}
	}
	return d
}

// LastCaptured is the latest query position at or before q whose
// attention was captured (the run keeps some positions only); q itself
// when there is none.
func LastCaptured(att []trace.Attention, q int) int {
	best := -1
	for _, a := range att {
		if a.QueryPos <= q && a.QueryPos > best {
			best = a.QueryPos
		}
	}
	if best < 0 {
		return q
	}
	return best
}

// StrongestHead is the layer and head with the largest weight on key src
// (the first of equals, layers in order then heads); layers without an
// attention map are skipped. (-1, -1, -1) when no head saw src.
func StrongestHead(a trace.Attention, src int) (layer, head int, share float32) {
	layer, head, share = -1, -1, -1
	for l, heads := range a.Weights {
		for h, w := range heads {
			if src >= 0 && src < len(w) && w[src] > share {
				layer, head, share = l, h, w[src]
			}
		}
	}
	return layer, head, share
}
