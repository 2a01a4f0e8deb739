package viz

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/plot/font"

	"loupe/trace"
)

// LayerMeans returns, per layer, the mean over heads of w[layer][head],
// skipping NaN; a layer with no finite value gives NaN.
//
//	m[l] = (1/H) Σ_h w[l][h]
func LayerMeans(w [][]float32) []float64 {
	m := make([]float64, len(w))
	for l, row := range w {
		m[l] = mean(row)
	}
	return m
}

// mean is the mean of the finite values of xs, NaN if there is none.
func mean(xs []float32) float64 {
	var s float64
	n := 0
	for _, x := range xs {
		if v := float64(x); !math.IsNaN(v) && !math.IsInf(v, 0) {
			s += v
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// SinkShare is the mean, over every layer and head, of the attention the
// query pays to the first token: the "attention sink" (43 % on "My" in the
// article). Weights is [layer][head][key]; NaN when nothing was captured.
func SinkShare(a trace.Attention) float64 {
	return SourceShare(a, 0)
}

// SourceShare is the mean over every layer and head of the attention the
// query pays to key position src; NaN when src was not captured.
func SourceShare(a trace.Attention, src int) float64 {
	var col []float32
	for _, layer := range a.Weights {
		for _, head := range layer {
			if src >= 0 && src < len(head) {
				col = append(col, head[src])
			}
		}
	}
	return mean(col)
}

// TopK returns the positions of the k largest weights, in position order,
// and the total weight of every other position (NaN counts as 0). Ties go
// to the earlier position.
func TopK(w []float32, k int) (idx []int, rest float64) {
	k = max(0, min(k, len(w)))
	order := make([]int, len(w))
	for i := range order {
		order[i] = i
	}
	val := func(i int) float64 { return finiteOr0(float64(w[i])) }
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(val(b), val(a)) })
	idx = slices.Clone(order[:k])
	slices.Sort(idx)
	for _, i := range order[k:] {
		rest += val(i)
	}
	return idx, rest
}

func finiteOr0(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}

// MLPStats summarises the magnitudes of an MLP activation silu(gate)·up
// the way the article does: "half under 0.08, nearly 300 above 0.5, 70
// above 1, the largest 3.3".
type MLPStats struct {
	N         int     // finite values counted
	MedianAbs float64 // half of |v| are at most this
	Above05   int     // |v| > 0.5
	Above1    int     // |v| > 1
	MaxAbs    float64
}

// SummarizeMLP computes MLPStats over the finite values.
func SummarizeMLP(values []float32) MLPStats {
	var abs []float64
	for _, v := range values {
		if x := float64(v); !math.IsNaN(x) && !math.IsInf(x, 0) {
			abs = append(abs, math.Abs(x))
		}
	}
	s := MLPStats{N: len(abs), MedianAbs: math.NaN(), MaxAbs: math.NaN()}
	if len(abs) == 0 {
		return s
	}
	slices.Sort(abs)
	s.MedianAbs = median(abs)
	s.MaxAbs = abs[len(abs)-1]
	for _, a := range abs {
		if a > 0.5 {
			s.Above05++
		}
		if a > 1 {
			s.Above1++
		}
	}
	return s
}

// median of sorted xs (mean of the two middle ones for an even count).
func median(xs []float64) float64 {
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// LargestAbs returns the n finite values of largest magnitude, sorted from
// the most positive to the most negative: the article's MLP figure,
// positive on top, negative below.
func LargestAbs(values []float32, n int) []float64 {
	var vs []float64
	for _, v := range values {
		if x := float64(v); !math.IsNaN(x) && !math.IsInf(x, 0) {
			vs = append(vs, x)
		}
	}
	slices.SortStableFunc(vs, func(a, b float64) int { return cmp.Compare(math.Abs(b), math.Abs(a)) })
	vs = vs[:max(0, min(n, len(vs)))]
	slices.SortFunc(vs, func(a, b float64) int { return cmp.Compare(b, a) })
	return vs
}

// Visible makes a token's whitespace visible: space '·', newline '¶',
// tab '→', carriage return '\r'. (The embedded font has no '↵' glyph.)
// Other control characters become \xNN, a character the embedded font
// cannot draw (CJK, emoji: they would vanish) U+XXXX, and an empty token
// "(empty)".
func Visible(tok string) string {
	if tok == "" {
		return "(empty)"
	}
	var b strings.Builder
	for _, r := range tok {
		switch {
		case r == ' ':
			b.WriteRune('·')
		case r == '\n':
			b.WriteRune('¶')
		case r == '\t':
			b.WriteRune('→')
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && !hasGlyph(r):
			fmt.Fprintf(&b, "U+%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// quote is Visible between typographic quotes, cut to at most 24 runes.
func quote(tok string) string {
	r := []rune(Visible(tok))
	if len(r) > 24 {
		r = append(r[:23], '…')
	}
	return "“" + string(r) + "”"
}

// Percent formats a share 0..1 as "92.5 %"; NaN as "–".
func Percent(p float64) string {
	if math.IsNaN(p) {
		return "–"
	}
	switch x := p * 100; {
	case math.Abs(x) >= 99.95 || x == 0:
		return strconv.FormatFloat(math.Round(x), 'f', 0, 64) + " %"
	case math.Abs(x) < 0.095:
		return sig2(x) + " %" // 0.016 %, not a misleading 0.0 %
	}
	return strconv.FormatFloat(p*100, 'f', 1, 64) + " %"
}

// Count formats a large count the way the article does: "151,936" below
// ten million, "233 M", "1.5 B" above.
func Count(n int64) string {
	switch a := math.Abs(float64(n)); {
	case a >= 1e9:
		return trim(float64(n)/1e9, 1) + " B"
	case a >= 1e7:
		return trim(float64(n)/1e6, 0) + " M"
	default:
		return Thousands(n)
	}
}

// Bytes formats a byte count in decimal units: "29 KB", "3.1 GB".
func Bytes(b float64) string {
	for _, u := range []struct {
		s string
		v float64
	}{{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}} {
		if math.Abs(b) >= u.v {
			return sig2(b/u.v) + " " + u.s
		}
	}
	return strconv.FormatFloat(b, 'f', 0, 64) + " B"
}

// Seconds formats a duration in seconds with two significant digits
// (0.08 s, 2.1 s, 7.1 s, 12 s).
func Seconds(s float64) string { return sig2(s) + " s" }

// sig2 formats x with two significant digits (0.08, 2.1, 14), whole
// numbers from 100 up with separators (1,495), never in exponent form.
func sig2(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return "–"
	case math.Abs(x) >= 100:
		return Thousands(int64(math.Round(x)))
	case x == 0:
		return "0"
	}
	d := max(0, 1-int(math.Floor(math.Log10(math.Abs(x)))))
	x = math.Round(x*math.Pow10(d)) / math.Pow10(d)
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// trim formats x with at most d decimals and no trailing zeros.
func trim(x float64, d int) string {
	s := strconv.FormatFloat(x, 'f', d, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// plural is "1 token", "3,139 tokens".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return Thousands(int64(n)) + " " + word + "s"
}

// Thousands formats n with comma separators: 151936 → "151,936".
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// sansFace is the embedded font the figures are drawn in.
var sansFace = sync.OnceValue(func() font.Face { return font.DefaultCache.Lookup(sans, 12) })

// hasGlyph reports whether the figures' font has a glyph for r.
func hasGlyph(r rune) bool {
	f := sansFace().Face
	if f == nil {
		return true
	}
	i, err := f.GlyphIndex(nil, r)
	return err == nil && i != 0
}
