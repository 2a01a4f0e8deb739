// Package page writes the lesson's handout: one HTML page a teacher can
// hand out, the texts of every chapter with the model, the prompt and the
// date, and beside it a PNG figure per chapter (NAME-ID.png), drawn light
// for paper. The window's File › Save lesson… and `loupe lesson --html`
// both call Write, so the two write the same page for the same run.
package page

import (
	"fmt"
	"html/template"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot/vg"

	"loupe/i18n"
	"loupe/lesson"
	"loupe/trace"
	"loupe/trace/stats"
	"loupe/viz"
)

// figureW and figureH are a figure's size in pixels at viz.DPI: a 3:2
// slide, as the window exports its panels. A figure with a height of its
// own (a row of token chips, a few timing bars) is cut to it, no shorter
// than figureMinH: on a 3:2 slide it would be a strip in a blank page.
const figureW, figureH, figureMinH = 1500, 1000, 100

// figureHeight is f's height on the page, in points.
func figureHeight(f viz.Figure) vg.Length {
	full, least := viz.Pixels(figureH, viz.DPI), viz.Pixels(figureMinH, viz.DPI)
	if h, ok := viz.Height(f, viz.Pixels(figureW, viz.DPI)); ok {
		return min(full, max(least, h))
	}
	return full
}

// KVReader reads the model's cached keys and values; *engine.Model has it.
type KVReader interface {
	CachedTokens() int
	KVRows(layer, kvHead, n int) trace.KVRows
}

// KV are the cached keys and values of the attention chapter's layer and
// K/V head over the prompt, for the KV cache figure; empty when r is nil
// or its cache does not hold the prompt.
func KV(in lesson.Input, r KVReader) trace.KVRows {
	if r == nil || in.Inspect == nil {
		return trace.KVRows{}
	}
	f := in.Inspect.Attention
	l, h := 0, 0
	if ch := attentionOf(in); ch != nil {
		l, h = ch.Layer, ch.Head
	}
	group := h / max(1, in.Model.Heads/max(1, in.Model.KVHeads))
	if n := f.QueryPos + 1; r.CachedTokens() >= n && in.Model.HasAttention(l) {
		return r.KVRows(l, group, n)
	}
	return trace.KVRows{}
}

// attentionOf is the attention chapter's figures of in.
func attentionOf(in lesson.Input) *lesson.AttentionFigures {
	l, err := lesson.Build(in)
	if err != nil {
		return nil
	}
	if a, ok := l.Chapter(lesson.Attention).Figures.(lesson.AttentionFigures); ok && a.Layer >= 0 {
		return &a
	}
	return nil
}

// Write writes the handout of in at path, with kv the cached keys and
// values of the attention chapter's layer and K/V head (KV; empty: the
// KV cache chapter shows the parameter shares instead) and now its date.
func Write(path string, in lesson.Input, kv trace.KVRows, now time.Time) error {
	l, err := lesson.Build(in)
	if err != nil {
		return err
	}
	base := strings.TrimSuffix(path, filepath.Ext(path))
	type section struct {
		lesson.Chapter
		Number int
		Image  string
	}
	var secs []section
	th := viz.Light() // for paper
	th.Lang = in.Lang
	if in.FromZero {
		th.Count = viz.FromZero
	}
	for i, ch := range l.Chapters {
		sec := section{Chapter: ch, Number: i + 1}
		if fig := Figure(ch, in, kv, th); fig != nil {
			png, err := viz.PNG(fig, viz.Pixels(figureW, viz.DPI), figureHeight(fig))
			if err != nil {
				return fmt.Errorf("%s figure: %w", ch.ID, err)
			}
			name := base + "-" + ch.ID + ".png"
			if err := os.WriteFile(name, png, 0o644); err != nil {
				return err
			}
			sec.Image = filepath.Base(name)
		}
		secs = append(secs, sec)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = handout.Execute(f, map[string]any{"Lesson": l, "Model": in.Model, "Date": now.Format("2 January 2006, 15:04"), "Sections": secs})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

var handout = template.Must(template.New("lesson").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>The two times of an answer, told by {{.Model.Name}}</title>
<style>body{font-family:sans-serif;max-width:50em;margin:2em auto;line-height:1.5;padding:0 1em}
img{max-width:100%;border:1px solid #ddd}h2{margin-top:2em}.meta{color:#555}.skipped{color:#a50}</style></head>
<body><h1>The two times of an answer</h1>
<p class="meta">Told by Loupe on {{.Model.Name}} ({{.Model.Layers}} layers × {{.Model.Heads}} heads), {{.Date}}.<br>
Prompt: <q>{{.Lesson.Prompt}}</q></p>
{{range .Sections}}<h2>{{.Number}}. {{.Title}}</h2>
<p>{{.Text}}</p>{{if .Skipped}}<p class="skipped">Not measured: {{.Skipped}}.</p>{{end}}
{{if .Image}}<img src="{{.Image}}" alt="{{.Title}}">{{end}}
{{end}}</body></html>
`))

// Figure is a chapter's figure: what its panel shows, drawn headless from
// the lesson's input; nil for a chapter without a figure of its own (a
// timing chapter whose runs were not made, the KV cache without its rows).
func Figure(ch lesson.Chapter, in lesson.Input, kv trace.KVRows, th viz.Theme) viz.Figure {
	run, att := in.Run, in.Inspect.Attention
	switch ch.ID {
	case lesson.Tokens:
		return viz.TokenChips(run.Tokens[:att.QueryPos+1], th)
	case lesson.Embedding:
		return embeddingFigure(ch.Figures.(lesson.EmbeddingFigures), in, th)
	case lesson.Attention:
		f := ch.Figures.(lesson.AttentionFigures)
		if f.Layer >= 0 {
			title := fmt.Sprintf("%s, %s: the attention of “%s” over the prompt", th.Count.Layer(f.Layer), th.Count.Head(f.Head), strings.TrimSpace(f.Query))
			return viz.HeadBars(texts(run)[:f.QueryPos+1], att.Weights[f.Layer][f.Head], title, th)
		}
		return nil
	case lesson.Grid:
		return grid(in, ch.Show.Source, nil, th)
	case lesson.Sink:
		return grid(in, 0, nil, th)
	case lesson.KVCache:
		if len(kv.Keys) > 0 {
			return viz.KVCache(kv.Keys, kv.Values, texts(run), th)
		}
		return nil
	case lesson.MLP:
		l := ch.Figures.(lesson.MLPFigures).Layer
		return viz.MLPValues(in.Inspect.MLP[l].Values, 600, "", th)
	case lesson.Output:
		return viz.TopCandidates(run.Steps[0].Top, run.Steps[0].Chosen.ID, th)
	case lesson.Loop:
		return viz.StepProbs(run.Steps, th)
	case lesson.Counterfactual:
		return counterfactualFigure(ch, in, th)
	case lesson.Summary:
		return viz.ParamShares(in.Model, th)
	case lesson.Experts:
		return expertsFigure(ch.Figures.(lesson.ExpertsFigures), in, th)
	}
	return timingFigure(ch, in, th)
}

// texts are the run's token texts.
func texts(run *trace.Run) []string {
	out := make([]string, len(run.Tokens))
	for i, t := range run.Tokens {
		out[i] = t.Text
	}
	return out
}

// grid is the layers × heads grid of the inspected token's attention to
// src, the marked heads outlined.
func grid(in lesson.Input, src int, marked []trace.Head, th viz.Theme) viz.Figure {
	m, err := stats.SourceMapOf(in.Inspect.Attention, src, in.Model)
	if err != nil {
		return viz.NoData(th, err.Error())
	}
	g := viz.GridOf(m, texts(in.Run))
	g.Marked = marked
	return viz.AttentionGrid(g, th)
}

// embeddingFigure is the source token's row, as the Embedding tab draws
// it: the numbers as a strip of colour and as bars, with the table's shape.
func embeddingFigure(f lesson.EmbeddingFigures, in lesson.Input, th viz.Theme) viz.Figure {
	row := in.Inspect.Embedding
	if in.SourceRow != nil {
		row = in.SourceRow(f.ID)
	}
	return viz.EmbeddingRow(row, viz.EmbeddingRowInfo{Token: f.Text, Row: f.ID, Rows: f.Rows, Tied: f.Tied}, th)
}

// counterfactualFigure is the first token's top-10 with every head beside
// the one with the fetching heads switched off; before that run is made,
// the grid with those heads outlined.
func counterfactualFigure(ch lesson.Chapter, in lesson.Input, th viz.Theme) viz.Figure {
	e := in.Extra
	if e == nil || e.Ablated == nil {
		return grid(in, ch.Show.Source, ch.Figures.(lesson.CounterfactualFigures).Heads, th)
	}
	first := in.Run.Steps[0]
	l := in.Lang
	return viz.SideBySide(
		viz.Retitled(viz.TopCandidates(first.Top, first.Chosen.ID, th), l.T("lesson.page.heads_on", nil)),
		viz.Retitled(viz.TopCandidates(e.Ablated.First.Top, e.Ablated.First.Chosen.ID, th),
			l.N("lesson.page.heads_off", len(e.Ablated.Heads), i18n.Args{"N": len(e.Ablated.Heads)})))
}

// expertsFigure is the first written token's routing in every MoE layer
// and the share of each layer's experts the run touched, as the Experts
// tab draws it.
func expertsFigure(f lesson.ExpertsFigures, in lesson.Input, th viz.Theme) viz.Figure {
	m, steps := in.Model, in.Run.Steps
	v := viz.ExpertsView{Token: strings.TrimSpace(f.Text), Layers: m.Layers, Experts: m.Experts, Routes: steps[0].Experts}
	v.Touched = make([]float64, m.Layers)
	for l := range v.Touched {
		v.Touched[l] = math.NaN()
	}
	for _, t := range stats.ExpertsTouched(steps, len(steps), m.Experts) {
		if t.Layer < len(v.Touched) {
			v.Touched[t.Layer] = t.Share
		}
	}
	return viz.ExpertsFigure(v, th)
}

// timingFigure is a timing chapter's runs: the prompt's and The
// Gold-Bug's two times, the Gold-Bug at each kernel level against the
// bandwidth, one conversation then several, thinking off and on; nil
// while they are not measured. A model without a thinking template
// shows what it does instead: it completes the text.
func timingFigure(ch lesson.Chapter, in lesson.Input, th viz.Theme) viz.Figure {
	e, l := in.Extra, in.Lang
	switch ch.ID {
	case lesson.TwoTimes:
		rows := []viz.TimingRow{viz.TimingFrom(l.T("lesson.page.prompt", nil), in.Run.Timing)}
		if e != nil && e.Gold != nil {
			rows = append(rows, viz.TimingFrom(l.T("lesson.page.gold", nil), *e.Gold))
		}
		return viz.TimingBars(rows, 0, th)
	case lesson.ComputeMemory:
		if e == nil || len(e.Kernels) == 0 {
			return nil
		}
		var rows []viz.TimingRow
		bytes := float64(in.Model.WeightBytesPerTok + in.Model.StateBytes)
		for _, k := range e.Kernels {
			rows = append(rows, viz.TimingRow{Label: l.T("lesson.page.gold_level", i18n.Args{"Level": k.Level}), PrefillTokens: k.PrefillTokens,
				PrefillSeconds: k.PrefillSeconds, DecodeTokens: k.DecodeTokens, DecodeSeconds: k.DecodeSeconds, BytesPerToken: bytes})
		}
		return viz.Retitled(viz.TimingBars(rows, e.BandwidthGBs, th), ch.Title)
	case lesson.Conversations:
		if e == nil || len(e.Batch) == 0 {
			return nil
		}
		var pts []viz.BatchPoint
		for _, p := range e.Batch {
			pts = append(pts, viz.BatchPoint{Label: strconv.Itoa(p.Conversations), DecodeTokS: p.DecodeTokS,
				PerSequenceTokS: p.PerSequenceTokS, MemoryTokS: p.MemoryCeilingTokS, ComputeTokS: p.ComputeCeilingTokS})
		}
		return viz.BatchSweep(ch.Title, pts, nil, th)
	case lesson.Thinking:
		if !in.ThinkingTemplate {
			return viz.TokenChips(in.Run.Tokens, th)
		}
		if e == nil || e.ThinkOn == nil || e.ThinkOff == nil {
			return nil
		}
		return viz.Retitled(viz.TimingBars([]viz.TimingRow{viz.TimingFrom(l.T("lesson.page.think_off", nil), *e.ThinkOff),
			viz.TimingFrom(l.T("lesson.page.think_on", nil), *e.ThinkOn)}, 0, th), ch.Title)
	}
	return nil
}
