package viz

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"

	"loupe/i18n"
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
	title := th.t("params.title", i18n.Args{"Model": info.Name, "N": th.num().Count(total)})
	if len(parts) == 0 {
		return noData(th, th.t("params.untitled", nil), th.t("params.none", nil))
	}
	note := th.t("params.head", i18n.Args{"Head": th.num().Count(head), "Total": th.num().Count(total), "Share": th.pct(share)})
	notes := []string{note}
	if info.TiedEmbeddings {
		notes = append(notes, th.t("params.tied", nil))
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
		rows = append(rows, row{name: th.part(p.Name), value: p.Of, color: col, text: th.num().Count(p.Params) + "  " + th.pct(p.Of)})
	}
	return rowPlot(rows, th.t("params.axis", nil), th.percentAxis(), th)
}
