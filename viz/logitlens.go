package viz

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"loupe/format"
	"loupe/i18n"
	"loupe/trace"
	"loupe/trace/stats"
)

// LogitLens draws the logit lens of one position: a row per layer (the
// first at the bottom, as information rises) and a column per rank, each
// cell the candidate's text and probability, coloured by it. Cells holding
// the final choice are outlined and the first layer where it leads is
// named. choice < 0 takes the last layer's top candidate.
func LogitLens(lens []trace.LensLayer, token string, pos, choice int, th Theme) Figure {
	th = th.complete()
	title := th.t("lens.title", i18n.Args{"Token": tokenTitle(token, pos, th)})
	ranks := 0
	for _, ll := range lens {
		ranks = max(ranks, len(ll.Top))
	}
	if len(lens) == 0 || ranks == 0 {
		return noData(th, title, th.t("lens.none", nil))
	}
	if choice < 0 {
		choice = lens[len(lens)-1].Top[0].ID
	}
	rows := make([][]float64, len(lens))
	var marked []trace.Head
	for l, ll := range lens {
		rows[l] = make([]float64, ranks)
		for r := range rows[l] {
			rows[l][r] = math.NaN()
			if r < len(ll.Top) {
				rows[l][r] = ll.Top[r].P
				if ll.Top[r].ID == choice {
					marked = append(marked, trace.Head{Layer: l, Head: r})
				}
			}
		}
	}
	first, stays := stats.LensLeads(lens, choice)
	choiceText := ""
	for _, ll := range lens {
		for _, c := range ll.Top {
			if c.ID == choice && choiceText == "" {
				choiceText = c.Text
			}
		}
	}
	note := th.t("lens.never", i18n.Args{"Token": th.quote(choiceText)})
	if choiceText == "" {
		note = th.t("lens.absent", i18n.Args{"ID": choice, "N": ranks})
	}
	switch {
	case first >= 0 && first == stays:
		note = th.t("lens.leads", i18n.Args{"Token": th.quote(choiceText), "Layer": th.layer(first)})
	case first >= 0 && stays >= 0:
		note = th.t("lens.stays", i18n.Args{"Token": th.quote(choiceText), "Layer": th.layer(first), "Stays": th.layer(stays)})
	}
	p := th.newPlot()
	p.Add(newHeat(rows, th.Palette, 0, 1, th))
	p.Add(&cellTexts{lens: lens, ranks: ranks, th: th})
	p.Add(&outlines{cells: marked, th: th})
	p.X.Label.Text, p.Y.Label.Text = th.t("rank", nil), th.t("layer.axis", nil)
	p.X.Padding, p.Y.Padding = 0, 0
	p.X.Min, p.X.Max = -0.5, float64(ranks)-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(lens))-0.5
	p.X.Tick.Marker = indexTicks{n: ranks, base: 1}
	f := &frame{th: th, title: title, notes: []string{note, th.t("lens.cells", nil)}}
	f.body = func(c draw.Canvas) {
		st := th.body()
		p.Y.Tick.Marker = fitIndexTicks(len(lens), th.Count.Base(), c.Size().Y-3*th.FontSize, st.Height("0"))
		if first >= 0 {
			p.Y.Tick.Marker = leadTicks{inner: p.Y.Tick.Marker, lead: first}
		}
		p.Draw(c)
	}
	return f
}

// leadTicks labels the layer where the final choice first leads "n *"
// (always, even when thinning would skip it) and keeps the other labels.
type leadTicks struct {
	inner plot.Ticker
	lead  int
}

func (t leadTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := t.inner.Ticks(lo, hi)
	it, _ := t.inner.(indexTicks)
	for i := range ts {
		if int(ts[i].Value) == t.lead {
			ts[i].Label = fmt.Sprint(t.lead+it.base) + " *"
		} else if int(ts[i].Value) == t.lead-1 || int(ts[i].Value) == t.lead+1 {
			if it.step > 1 {
				ts[i].Label = "" // room for the marked one
			}
		}
	}
	return ts
}

// cellTexts writes each candidate's text and probability in its cell, in
// black or white for contrast with the cell's colour; text that does not
// fit the cell is cut with an ellipsis, and dropped when even one
// character cannot fit.
type cellTexts struct {
	lens  []trace.LensLayer
	ranks int
	th    Theme
}

func (ct *cellTexts) Plot(c draw.Canvas, p *plot.Plot) {
	if !(c.Size().X > 0 && c.Size().Y > 0) {
		return
	}
	trX, trY := p.Transforms(&c)
	st := ct.th.body()
	st.Font.Size = min(ct.th.FontSize, (trY(1)-trY(0))*0.55)
	if st.Font.Size < 6 {
		return // rows too thin for text: the colours remain
	}
	st.XAlign, st.YAlign = draw.XCenter, draw.YCenter
	cw := trX(1) - trX(0) - 4
	for l, ll := range ct.lens {
		for r, cand := range ll.Top {
			st.Color = textOn(ct.th, cand.P)
			s := fit(st, cut(visible(cand.Text), 14)+" "+ct.th.pct(cand.P), cw)
			if s == "…" {
				continue
			}
			c.FillText(st, vg.Point{X: trX(float64(r)), Y: trY(float64(l))}, s)
		}
	}
}

// textOn is black or white, whichever reads better on the palette's
// colour for p: one of the two is always at 4.58 : 1 or more. A fixed
// switch at p = 0.55 put white on viridis' teal at 3 : 1.
func textOn(th Theme, p float64) color.Color {
	cell := colorAt(th.Palette.Colors(), p)
	if format.Contrast(color.Black, cell) >= format.Contrast(color.White, cell) {
		return color.Black
	}
	return color.White
}

func (ct *cellTexts) DataRange() (xmin, xmax, ymin, ymax float64) {
	return -0.5, float64(ct.ranks) - 0.5, -0.5, float64(len(ct.lens)) - 0.5
}
