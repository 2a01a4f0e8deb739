package viz

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"

	"loupe/trace"
)

// Share is one part of the model's parameters.
type Share struct {
	Name   string
	Params int64
	Of     float64 // share of all parameters, 0..1
}

// ParamSplit splits the parameters into embedding, attention, MLP, norms
// and (when not tied to the embedding) the output head.
func ParamSplit(info trace.ModelInfo) []Share {
	parts := []Share{{"embedding", info.ParamsEmbedding, 0}, {"attention", info.ParamsAttention, 0},
		{"Gated DeltaNet", info.ParamsDeltaNet, 0}, {"MLP", info.ParamsMLP, 0}, {"norms", info.ParamsNorm, 0}, {"output head", info.ParamsOutput, 0}}
	var total int64
	for _, p := range parts {
		total += p.Params
	}
	var out []Share
	for _, p := range parts {
		if p.Params > 0 {
			p.Of = float64(p.Params) / float64(total)
			out = append(out, p)
		}
	}
	return out
}

// OutputReadShare is what the output head weighs in one decode step: its
// parameters, all the parameters, and its share of the bytes a step reads
// (the article's "233 M of 1.5 B, 15 %"). With tied embeddings the head is
// the embedding table, read once more.
func OutputReadShare(info trace.ModelInfo) (head, total int64, share float64) {
	head = info.ParamsOutput
	if info.TiedEmbeddings || head == 0 {
		head = info.ParamsEmbedding
	}
	for _, s := range ParamSplit(info) {
		total += s.Params
	}
	share = ratio(float64(head), float64(total))
	if info.WeightBytesPerTok > 0 && info.OutputBytesPerTok > 0 {
		share = float64(info.OutputBytesPerTok) / float64(info.WeightBytesPerTok)
	}
	return head, total, share
}

// ParamShares draws where the parameters are, one bar per part with its
// count and share, and a caption for the output head's share of what
// writing one token reads.
func ParamShares(info trace.ModelInfo, th Theme) Figure {
	th = th.complete()
	parts := ParamSplit(info)
	head, total, share := OutputReadShare(info)
	title := fmt.Sprintf("parameters of %s: %s", info.Name, Count(total))
	if len(parts) == 0 {
		return noData(th, "parameters", "no model loaded")
	}
	note := fmt.Sprintf("writing one token reads the output head: %s of %s, %s", Count(head), Count(total), Percent(share))
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
func paramsPlot(parts []Share, head string, fit int, th Theme) *plot.Plot {
	var rows []row
	for _, p := range parts[:min(fit, len(parts))] {
		col := th.Accent
		if p.Name == head {
			col = th.Highlight
		}
		rows = append(rows, row{name: p.Name, value: p.Of, color: col, text: Count(p.Params) + "  " + Percent(p.Of)})
	}
	return rowPlot(rows, "share of the parameters", percentTicks{}, th)
}
