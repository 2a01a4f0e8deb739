package viz

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"loupe/i18n"
	"loupe/trace"
	"loupe/trace/stats"
)

// TimingRow is one generation split into its two times: reading the
// prompt (prefill) and writing the answer (decode).
type TimingRow struct {
	Label          string
	PrefillTokens  int
	PrefillSeconds float64
	DecodeTokens   int
	DecodeSeconds  float64
	// BytesPerToken is what one decode step reads (weights + KV cache);
	// 0 when unknown.
	BytesPerToken float64
}

// TimingFrom makes a row from a run's timing.
func TimingFrom(label string, t trace.Timing) TimingRow {
	return TimingRow{Label: label, PrefillTokens: t.PrefillTokens, PrefillSeconds: t.PrefillSeconds,
		DecodeTokens: t.DecodeTokens, DecodeSeconds: t.DecodeSeconds, BytesPerToken: t.BytesPerToken}
}

// Total is the whole wait in seconds.
func (r TimingRow) Total() float64 { return finiteOr0(r.PrefillSeconds) + finiteOr0(r.DecodeSeconds) }

// PrefillShare is the part of the wait spent reading, 0..1 (NaN if no time).
func (r TimingRow) PrefillShare() float64 { return stats.Ratio(finiteOr0(r.PrefillSeconds), r.Total()) }

// PrefillRate and DecodeRate are tokens per second (NaN if no time).
func (r TimingRow) PrefillRate() float64 {
	return stats.Ratio(float64(r.PrefillTokens), r.PrefillSeconds)
}
func (r TimingRow) DecodeRate() float64 { return stats.Ratio(float64(r.DecodeTokens), r.DecodeSeconds) }

// DecodeGBs is the memory traffic of writing: forward passes
// (trace.DecodePasses) per second × bytes per pass, in GB/s (NaN if
// unknown).
func (r TimingRow) DecodeGBs() float64 {
	return stats.DecodeGBs(trace.Timing{DecodeTokens: r.DecodeTokens, DecodeSeconds: r.DecodeSeconds, BytesPerToken: r.BytesPerToken})
}

// TimingBars draws one bar per generation, split into reading (prefill)
// and writing (decode) on a common time scale, each part labelled with
// tokens, seconds, tokens/s and share. bandwidthGBs, when > 0, is the
// memory bandwidth measured on its own, compared in a caption with what
// decoding uses.
func TimingBars(runs []TimingRow, bandwidthGBs float64, th Theme) Figure {
	th = th.complete()
	title := th.t("timing.title", nil)
	longest := 0.0
	for _, r := range runs {
		longest = max(longest, r.Total())
	}
	if !(longest > 0) {
		return noData(th, title, th.t("timing.none", nil))
	}
	return &frame{th: th, title: title, notes: bandwidthNotes(runs, bandwidthGBs, th), body: func(c draw.Canvas) {
		drawTiming(c, runs, longest, th)
	}, height: func(vg.Length) vg.Length { return timingHeight(len(runs), th) }}
}

// timingHeight is the height drawTiming needs to draw n run blocks and
// the time axis.
func timingHeight(n int, th Theme) vg.Length {
	lh := lineHeight(th.body())
	return vg.Length(n)*4.8*lh + 2.5*lh + lh/2
}

// bandwidthNotes compares each run's decode traffic with the bandwidth.
func bandwidthNotes(runs []TimingRow, bandwidthGBs float64, th Theme) []string {
	var notes []string
	for _, r := range runs {
		gbs := r.DecodeGBs()
		if math.IsNaN(gbs) {
			continue
		}
		n := th.num()
		gb := func(x float64) string { return n.Sig2(x) + n.Space() + n.Unit("GB/s") }
		s := th.t("timing.traffic", i18n.Args{"Run": r.Label, "Bytes": n.Bytes(r.BytesPerToken), "Rate": n.Sig2(r.DecodeRate()), "GBs": gb(gbs)})
		if bandwidthGBs > 0 {
			s += th.t("timing.measured", i18n.Args{"GBs": gb(bandwidthGBs)})
		}
		notes = append(notes, s)
	}
	return notes[:min(len(notes), 3)]
}

// drawTiming draws as many run blocks as fit, then the time axis.
func drawTiming(c draw.Canvas, runs []TimingRow, longest float64, th Theme) {
	lh := lineHeight(th.body())
	block := 4.8 * lh
	fit := max(1, int((c.Size().Y-2.5*lh)/block))
	shown := runs[:min(fit, len(runs))]
	scale := c.Size().X / vg.Length(longest)
	y := c.Max.Y
	for _, r := range shown {
		drawTimingRun(c, r, scale, y, th)
		y -= block
	}
	if len(shown) < len(runs) {
		st := th.body()
		c.FillText(st, vg.Point{X: c.Min.X, Y: y - lh}, th.n("timing.more", len(runs)-len(shown), i18n.Args{"N": len(runs) - len(shown)}))
		y -= lh
	}
	drawTimeAxis(c, y-0.3*lh, longest, scale, th)
}

// drawTimingRun draws one block, top at y: the label and total, the split
// bar, then one line for reading and one for writing.
func drawTimingRun(c draw.Canvas, r TimingRow, scale vg.Length, y vg.Length, th Theme) {
	lh := lineHeight(th.body())
	st := th.body()
	st.YAlign = draw.YTop
	c.FillText(st, vg.Point{X: c.Min.X, Y: y}, fit(st, th.t("timing.total", i18n.Args{"Run": r.Label, "Time": th.num().Duration(r.Total())}), c.Size().X))
	top, bottom := y-1.15*lh, y-2.15*lh
	x0 := c.Min.X
	xp := x0 + max(vg.Points(1), vg.Length(finiteOr0(r.PrefillSeconds))*scale)
	xd := xp + vg.Length(finiteOr0(r.DecodeSeconds))*scale
	c.FillPolygon(th.Prefill, rect(x0, bottom, xp, top))
	c.FillPolygon(th.Decode, rect(xp, bottom, xd, top))
	share := r.PrefillShare()
	lines := []struct {
		txt string
		col color.Color
	}{
		{phaseLine("timing.reading", r.PrefillTokens, r.PrefillSeconds, r.PrefillRate(), share, th), th.Prefill},
		{phaseLine("timing.writing", r.DecodeTokens, r.DecodeSeconds, r.DecodeRate(), 1-share, th), th.Decode},
	}
	for i, l := range lines {
		st.Color = l.col
		c.FillText(st, vg.Point{X: x0, Y: bottom - 0.3*lh - vg.Length(i)*lh}, fit(st, l.txt, c.Size().X))
	}
}

// phaseLine is "reading 17 tokens · 0.08 s · 213 tokens/s · 1.1 %"; key
// names the phase's sentence ("timing.reading").
func phaseLine(key string, tokens int, seconds, rate, share float64, th Theme) string {
	n := th.num()
	return oneLine(th.n(key, tokens, i18n.Args{"N": n.Thousands(int64(tokens))}), n.Duration(seconds),
		th.t("rate", i18n.Args{"Rate": n.Sig2(rate)}), th.pct(share))
}

// drawTimeAxis draws a seconds axis at height y.
func drawTimeAxis(c draw.Canvas, y vg.Length, longest float64, scale vg.Length, th Theme) {
	line := draw.LineStyle{Color: th.Foreground, Width: vg.Points(1)}
	c.StrokeLine2(line, c.Min.X, y, c.Min.X+vg.Length(longest)*scale, y)
	st := th.body()
	st.XAlign, st.YAlign = draw.XCenter, draw.YTop
	for _, t := range (plot.DefaultTicks{}).Ticks(0, longest) {
		if t.Label == "" || t.Value < 0 || t.Value > longest {
			continue
		}
		x := c.Min.X + vg.Length(t.Value)*scale
		c.StrokeLine2(line, x, y, x, y-st.Font.Size/3)
		lbl := th.num().Number(t.Label) + th.num().Space() + "s"
		switch st.XAlign = draw.XCenter; {
		case x-st.Width(lbl)/2 < c.Min.X:
			st.XAlign = draw.XLeft
		case x+st.Width(lbl)/2 > c.Max.X:
			st.XAlign = draw.XRight
		}
		c.FillText(st, vg.Point{X: x, Y: y - st.Font.Size/2}, lbl)
	}
}

// rect is the polygon of an axis-aligned rectangle.
func rect(x0, y0, x1, y1 vg.Length) []vg.Point {
	return []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}
}
