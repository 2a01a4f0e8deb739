package viz

import (
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"loupe/i18n"
	"loupe/trace"
)

// TokenChips draws the sequence as the model sees it: one chip per token
// with its text (whitespace visible) and its id in the vocabulary below,
// prompt tokens in the prefill colour and generated ones in the decode
// colour, wrapped into lines. Tokens that do not fit are counted.
func TokenChips(tokens []trace.Token, th Theme) Figure {
	th = th.complete()
	prompt := 0
	for _, t := range tokens {
		if !t.Generated {
			prompt++
		}
	}
	title := th.t("tokens.title", i18n.Args{"Tokens": th.tokens(len(tokens)), "Read": th.num().Thousands(int64(prompt)), "Written": th.num().Thousands(int64(len(tokens) - prompt))})
	if len(tokens) == 0 {
		return noData(th, th.t("tokens.untitled", nil), th.t("tokens.none", nil))
	}
	return &frame{th: th, title: title, body: func(c draw.Canvas) { drawChips(c, tokens, th) },
		height: func(w vg.Length) vg.Length { return chipsHeight(tokens, w, th) }}
}

// chipsHeight is the height of every chip laid at width w: the lines
// they wrap into, each a chip and its id below.
func chipsHeight(tokens []trace.Token, w vg.Length, th Theme) vg.Length {
	c := draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: w, Y: 0}}}
	chips := layChips(c, tokens, th)
	if len(chips) == 0 {
		return 0
	}
	lh := lineHeight(th.body())
	return -chips[len(chips)-1].y + 2*lh
}

// chip is one laid-out token: its top-left corner and width.
type chip struct {
	x, y, w vg.Length
	txt, id string
}

// drawChips lays chips left to right, wrapping at the canvas edge; when
// they do not all fit, the last ones give way to "… N more".
func drawChips(c draw.Canvas, tokens []trace.Token, th Theme) {
	st := th.body()
	lh := lineHeight(st)
	chips := layChips(c, tokens, th)
	n := len(chips)
	for n > 0 && chips[n-1].y-2*lh < c.Min.Y {
		n-- // below the canvas
	}
	if n < len(chips) {
		for n > 0 && chips[n-1].x+chips[n-1].w+st.Width(moreText(len(tokens)-n+1, th))+th.FontSize > c.Max.X {
			n-- // make room for the count on the last line
		}
		x, y := c.Min.X, c.Max.Y
		if n > 0 {
			x, y = chips[n-1].x+chips[n-1].w+th.FontSize/2, chips[n-1].y
		}
		st.YAlign = draw.YTop
		c.FillText(st, vg.Point{X: x, Y: y}, moreText(len(tokens)-n, th))
	}
	for i, ch := range chips[:n] {
		drawChip(c, ch.x, ch.y, ch.w, ch.txt, ch.id, tokens[i].Generated, th)
	}
}

func moreText(n int, th Theme) string {
	return th.t("tokens.more", i18n.Args{"N": th.num().Thousands(int64(n))})
}

// layChips places every chip, wrapping lines at the right edge.
func layChips(c draw.Canvas, tokens []trace.Token, th Theme) []chip {
	st := th.body()
	lh := lineHeight(st)
	pad, gap := th.FontSize/3, th.FontSize/2
	x, y := c.Min.X, c.Max.Y
	out := make([]chip, len(tokens))
	for i, t := range tokens {
		txt, id := cut(visible(t.Text), 20), strconv.Itoa(t.ID)
		w := max(st.Width(txt), st.Width(id)) + 2*pad
		if x > c.Min.X && x+w > c.Max.X {
			x, y = c.Min.X, y-2*lh-gap
		}
		out[i] = chip{x: x, y: y, w: w, txt: txt, id: id}
		x += w + gap/2
	}
	return out
}

// drawChip draws one chip with its top-left corner at (x, y).
func drawChip(c draw.Canvas, x, y, w vg.Length, txt, id string, generated bool, th Theme) {
	st := th.body()
	lh := lineHeight(st)
	fill := th.Prefill
	if generated {
		fill = th.Decode
	}
	c.FillPolygon(fill, rect(x, y-lh, x+w, y))
	st.XAlign, st.YAlign = draw.XCenter, draw.YCenter
	st.Color = th.Background
	c.FillText(st, vg.Point{X: x + w/2, Y: y - lh/2}, txt)
	st.Color = th.Foreground
	c.FillText(st, vg.Point{X: x + w/2, Y: y - 1.5*lh}, id)
}

// LayerHeads summarises one layer for one query: for every head, the
// token it looks at most and how much ("head 2: “·purple” 91 %, head 7:
// “My” 75 %"). heads is [head][key], the layer's slice of a
// trace.Attention; tokens are the sequence's texts.
func LayerHeads(tokens []string, heads [][]float32, layer int, th Theme) Figure {
	th = th.complete()
	title := th.t("heads.title", i18n.Args{"Layer": th.layer(layer)})
	if len(heads) == 0 {
		return noData(th, title, th.t("heads.none", nil))
	}
	rows := make([]row, len(heads))
	best := -1.0
	for h, w := range heads {
		rows[h] = row{name: th.t("head", i18n.Args{"N": th.Count.Index(h)}), color: th.Accent, text: "–"}
		if k := argmax(w); k >= 0 {
			rows[h].value = float64(w[k])
			rows[h].text = th.quote(tokenAt(tokens, k)) + "  " + th.pct(float64(w[k]))
			best = max(best, rows[h].value)
		}
	}
	for h := range rows {
		if rows[h].value == best {
			rows[h].color = th.Highlight
		}
	}
	return &frame{th: th, title: title, body: func(c draw.Canvas) {
		drawRows(c, th, func(fit int) *plot.Plot {
			return rowPlot(rows[:min(fit, len(rows))], th.t("heads.axis", nil), th.percentAxis(), th)
		})
	}}
}
