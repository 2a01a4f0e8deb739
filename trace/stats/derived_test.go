package stats

import (
	"math"
	"reflect"
	"slices"
	"testing"

	"loupe/trace"
)

// The embedding row (3, −4): norm 5 (the 3-4-5 triangle), mean |x| 3.5.
func TestStatsOf(t *testing.T) {
	s := StatsOf([]float32{3, -4, float32(math.NaN())})
	if s.Norm != 5 || s.Min != -4 || s.Max != 3 || s.MeanAbs != 3.5 {
		t.Errorf("StatsOf = %+v, want norm 5, min −4, max 3, mean |x| 3.5", s)
	}
	if z := StatsOf(nil); z != (VectorStats{}) {
		t.Errorf("empty: %+v", z)
	}
}

func TestPoolRows(t *testing.T) {
	nan := float32(math.NaN())
	m := [][]float32{{1, 2}, {3, nan}, {5, 6}, {7, 8}, {9, 10}}
	out, starts := PoolRows(m, 2)
	// groups: rows 0..1 → [(1+3)/2, 2] (NaN skipped), rows 2..4 → [(5+7+9)/3, (6+8+10)/3]
	if !slices.Equal(starts, []int{0, 2}) || !reflect.DeepEqual(out, [][]float64{{2, 2}, {7, 8}}) {
		t.Errorf("PoolRows = %v %v, want [[2 2] [7 8]] [0 2]", out, starts)
	}
	out, starts = PoolRows(m, 10) // no pooling needed
	if len(out) != 5 || !slices.Equal(starts, []int{0, 1, 2, 3, 4}) || !math.IsNaN(out[1][1]) || out[4][1] != 10 {
		t.Errorf("PoolRows(no pooling) = %v %v", out, starts)
	}
	if out, _ := PoolRows(nil, 4); len(out) != 0 {
		t.Errorf("PoolRows(nil) = %v", out)
	}
}

func TestLensLeads(t *testing.T) {
	top := func(ids ...int) []trace.LensLayer {
		lens := make([]trace.LensLayer, len(ids))
		for l, id := range ids {
			lens[l] = trace.LensLayer{Layer: l, Top: []trace.Candidate{{ID: id, P: 0.5}}}
		}
		return lens
	}
	// 7 leads at layer 1, loses it at 2, leads again from 3 to the last.
	lens := top(5, 7, 5, 7, 7)
	if first, stays := LensLeads(lens, -1); first != 1 || stays != 3 {
		t.Errorf("LensLeads = %d, %d; want 1, 3", first, stays)
	}
	if first, stays := LensLeads(lens, 5); first != 0 || stays != -1 {
		t.Errorf("5, not on top at the last layer: %d, %d; want 0, −1", first, stays)
	}
	if first, stays := LensLeads(lens, 12345); first != -1 || stays != -1 {
		t.Errorf("a token never on top: %d, %d", first, stays)
	}
	if first, _ := LensLeads(nil, -1); first != -1 {
		t.Errorf("no lens: %d", first)
	}
}

// hybrid is att with a Gated DeltaNet layer between its two layers.
var hybrid = trace.Attention{QueryPos: 2, Weights: [][][]float32{att.Weights[0], nil, att.Weights[1]}}

func TestSourceMapOf(t *testing.T) {
	info := trace.ModelInfo{LayerTypes: []string{"full_attention", "linear_attention", "full_attention"}}
	m, err := SourceMapOf(hybrid, 1, info)
	if err != nil {
		t.Fatal(err)
	}
	if m.Cells[0][0] != 0.25 || m.Cells[2][1] != 0 || len(m.Cells[1]) != 2 || !math.IsNaN(m.Cells[1][0]) || !math.IsNaN(m.Cells[1][1]) {
		t.Errorf("cells %v: want row 1 two NaN, [0][0] 0.25, [2][1] 0", m.Cells)
	}
	if !reflect.DeepEqual(m.Gaps, map[int]string{1: DeltaNetRowLabel}) || m.QueryPos != 2 || m.SourcePos != 1 {
		t.Errorf("gaps %v, query %d, source %d", m.Gaps, m.QueryPos, m.SourcePos)
	}
	// The means skip the gap: layer 1 is NaN, not 0.
	if r := RowMeans(m.Cells); !math.IsNaN(r[1]) || !near(r[0], (0.25+0.125)/2) {
		t.Errorf("RowMeans = %v", r)
	}
	// A capture that lacks a layer the model has: no map, not DeltaNet.
	if m, _ := SourceMapOf(hybrid, 0, trace.ModelInfo{}); m.Gaps[1] != NoMapRowLabel {
		t.Errorf("dense model's missing layer: %q", m.Gaps[1])
	}
	for _, src := range []int{-1, 3} {
		if _, err := SourceMapOf(hybrid, src, info); err == nil {
			t.Errorf("source %d: no error", src)
		}
	}
	// A key at or before the query that a head's row lacks is unknown.
	short := trace.Attention{QueryPos: 2, Weights: [][][]float32{{{1}}}}
	if g := SourceGrid(short, 2); !math.IsNaN(g[0][0]) {
		t.Errorf("uncaptured key: %v, want NaN", g[0][0])
	}
}

func TestStrongestHead(t *testing.T) {
	// On key 0: 0.5, 0.75 | 0.25, 0.5 → layer 0 head 1.
	if l, h, s := StrongestHead(hybrid, 0); l != 0 || h != 1 || s != 0.75 {
		t.Errorf("key 0: %d %d %v, want 0 1 0.75", l, h, s)
	}
	// On key 2: 0.25, 0.125 | 0.25, 0.5 → layer 2 (after the gap) head 1.
	if l, h, s := StrongestHead(hybrid, 2); l != 2 || h != 1 || s != 0.5 {
		t.Errorf("key 2: %d %d %v, want 2 1 0.5", l, h, s)
	}
	if l, h, _ := StrongestHead(hybrid, 9); l != -1 || h != -1 {
		t.Errorf("unseen key: %d %d", l, h)
	}
}

func TestSoftmax(t *testing.T) {
	// e^0 : e^ln3 = 1 : 3 → 0.25, 0.75; a NaN score gets 0.
	p := Softmax([]float64{0, math.Log(3), math.NaN()})
	if !near(p[0], 0.25) || !near(p[1], 0.75) || p[2] != 0 {
		t.Errorf("Softmax = %v, want [0.25 0.75 0]", p)
	}
	// Large scores do not overflow: 1000 and 1000 + ln 4 → 0.2, 0.8.
	if p := Softmax([]float64{1000, 1000 + math.Log(4)}); !near(p[0], 0.2) || !near(p[1], 0.8) {
		t.Errorf("Softmax(large) = %v", p)
	}
	if p := Softmax([]float64{math.NaN()}); p[0] != 0 {
		t.Errorf("all NaN: %v", p)
	}
}

func TestProbabilityOf(t *testing.T) {
	s := trace.Step{Chosen: trace.Candidate{ID: 1, P: 0.6}, Top: []trace.Candidate{{ID: 1, P: 0.6}, {ID: 2, P: 0.3}, {ID: 3, P: 0.05}}}
	for _, c := range []struct {
		id    int
		p     float64
		bound bool
	}{{1, 0.6, false}, {2, 0.3, false}, {99, 0.05, true}} {
		if p, b := ProbabilityOf(s, c.id); p != c.p || b != c.bound {
			t.Errorf("ProbabilityOf(%d) = %v %v, want %v %v", c.id, p, b, c.p, c.bound)
		}
	}
	if p, b := ProbabilityOf(trace.Step{Chosen: trace.Candidate{ID: 1}}, 2); p != 0 || !b {
		t.Errorf("nothing recorded: %v %v", p, b)
	}
}

func TestMedianRatio(t *testing.T) {
	xs := []float64{5, 1, 3}
	if Median(xs) != 3 || Median([]float64{4, 1, 3, 2}) != 2.5 || Median(nil) != 0 || xs[0] != 5 {
		t.Errorf("Median: 3, 2.5, 0 and xs untouched; got %v %v %v %v", Median(xs), Median([]float64{4, 1, 3, 2}), Median(nil), xs)
	}
	for _, b := range []float64{0, -1, math.Inf(1), math.NaN()} {
		if r := Ratio(0, b); !math.IsNaN(r) || OrZero(r) != 0 {
			t.Errorf("Ratio(0, %v) = %v, want NaN (unknown), OrZero 0", b, r)
		}
	}
	if Ratio(3, 4) != 0.75 || Rate(10, 0) != 0 || Rate(10, 4) != 2.5 {
		t.Errorf("Ratio(3, 4) %v, Rate(10, 0) %v, Rate(10, 4) %v", Ratio(3, 4), Rate(10, 0), Rate(10, 4))
	}
}
