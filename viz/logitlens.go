package viz

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"loupe/format"
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
	title := fmt.Sprintf("logit lens of %s: the next token after each layer", tokenTitle(token, pos))
	ranks := 0
	for _, ll := range lens {
		ranks = max(ranks, len(ll.Top))
	}
	if len(lens) == 0 || ranks == 0 {
		return noData(th, title, "no logit lens computed")
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
	note := fmt.Sprintf("the final choice %s is the top candidate at no layer", quote(choiceText))
	if choiceText == "" {
		note = fmt.Sprintf("the final choice (id %d) is in no layer's top %d", choice, ranks)
	}
	switch {
	case first >= 0 && first == stays:
		note = fmt.Sprintf("the final choice %s leads from %s on (*)", quote(choiceText), th.Count.Layer(first))
	case first >= 0 && stays >= 0:
		note = fmt.Sprintf("the final choice %s first leads at %s (*), and stays ahead from %s", quote(choiceText), th.Count.Layer(first), th.Count.Layer(stays))
	}
	p := th.newPlot()
	p.Add(newHeat(rows, th.Palette, 0, 1, th))
	p.Add(&cellTexts{lens: lens, ranks: ranks, th: th})
	p.Add(&outlines{cells: marked, th: th})
	p.X.Label.Text, p.Y.Label.Text = "rank", "layer"
	p.X.Padding, p.Y.Padding = 0, 0
	p.X.Min, p.X.Max = -0.5, float64(ranks)-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(lens))-0.5
	p.X.Tick.Marker = indexTicks{n: ranks, base: 1}
	f := &frame{th: th, title: title, notes: []string{note, "each cell: a candidate and its probability after that layer (final norm, output head); outlined: the final choice"}}
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
			s := fit(st, fmt.Sprintf("%s %s", cut(visible(cand.Text), 14), format.Percent(cand.P)), cw)
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
