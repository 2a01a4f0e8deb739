package viz

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"

	"loupe/format"
	"loupe/trace"
	"loupe/trace/stats"
)

// ParamShares draws where the parameters are, one bar per part with its
// count and share, and a caption for the output head's share of what
// writing one token reads.
func ParamShares(info trace.ModelInfo, th Theme) Figure {
	th = th.complete()
	parts := stats.ParamSplit(info)
	head, total, share := stats.OutputReadShare(info)
	title := fmt.Sprintf("parameters of %s: %s", info.Name, format.Count(total))
	if len(parts) == 0 {
		return noData(th, "parameters", "no model loaded")
	}
	note := fmt.Sprintf("writing one token reads the output head: %s of %s, %s", format.Count(head), format.Count(total), format.Percent(share))
	notes := []string{note}
	if info.TiedEmbeddings {
		notes = append(notes, "the output head is the embedding table, used both ways (tied)")
	}
	return &frame{th: th, title: title, notes: notes, body: func(c draw.Canvas) {
		drawRows(c, th, func(fit int) *plot.Plot { return paramsPlot(parts, headName(info), fit, th) })
	}}
}

// headName is the part that serves as the output head.
func headName(info trace.ModelInfo) string {
	if info.TiedEmbeddings || info.ParamsOutput == 0 {
		return "embedding"
	}
	return "output head"
}

// paramsPlot draws the parts, the output head highlighted.
func paramsPlot(parts []stats.Part, head string, fit int, th Theme) *plot.Plot {
	var rows []row
	for _, p := range parts[:min(fit, len(parts))] {
		col := th.Accent
		if p.Name == head {
			col = th.Highlight
		}
		rows = append(rows, row{name: p.Name, value: p.Of, color: col, text: format.Count(p.Params) + "  " + format.Percent(p.Of)})
	}
	return rowPlot(rows, "share of the parameters", percentTicks{}, th)
}
