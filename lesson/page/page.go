// Package page writes the lesson's handout: one HTML page a teacher can
// hand out, the texts of every chapter with the model, the prompt and the
// date, and beside it a PNG figure per chapter (NAME-ID.png), drawn light
// for paper. The window's File › Save lesson… and `loupe lesson --html`
// both call Write, so the two write the same page for the same run.
package page

import (
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"time"

	"loupe/lesson"
	"loupe/trace"
	"loupe/trace/stats"
	"loupe/viz"
)

// figureW and figureH are a figure's size in pixels at viz.DPI: a 3:2
// slide, as the window exports its panels.
const figureW, figureH = 1500, 1000

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
	if in.FromZero {
		th.Count = viz.FromZero
	}
	for i, ch := range l.Chapters {
		png, err := viz.PNG(Figure(ch, in, kv, th), viz.Pixels(figureW, viz.DPI), viz.Pixels(figureH, viz.DPI))
		if err != nil {
			return fmt.Errorf("%s figure: %w", ch.ID, err)
		}
		name := base + "-" + ch.ID + ".png"
		if err := os.WriteFile(name, png, 0o644); err != nil {
			return err
		}
		secs = append(secs, section{ch, i + 1, filepath.Base(name)})
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
<img src="{{.Image}}" alt="{{.Title}}">
{{end}}</body></html>
`))

// Figure is a chapter's figure: what its panel shows, drawn headless from
// the lesson's input.
func Figure(ch lesson.Chapter, in lesson.Input, kv trace.KVRows, th viz.Theme) viz.Figure {
	run, att := in.Run, in.Inspect.Attention
	texts := make([]string, len(run.Tokens))
	for i, t := range run.Tokens {
		texts[i] = t.Text
	}
	grid := func(src int, marked []trace.Head) viz.Figure {
		m, err := stats.SourceMapOf(att, src, in.Model)
		if err != nil {
			return viz.NoData(th, err.Error())
		}
		g := viz.GridOf(m, texts)
		g.Marked = marked
		return viz.AttentionGrid(g, th)
	}
	switch ch.ID {
	case lesson.Tokens:
		return viz.TokenChips(run.Tokens[:att.QueryPos+1], th)
	case lesson.Embedding:
		f := ch.Figures.(lesson.EmbeddingFigures)
		row := in.Inspect.Embedding
		if in.SourceRow != nil {
			row = in.SourceRow(f.ID)
		}
		return viz.Embedding(row, f.Text, th)
	case lesson.Attention:
		f := ch.Figures.(lesson.AttentionFigures)
		if f.Layer >= 0 {
			title := fmt.Sprintf("%s, %s: the attention of “%s” over the prompt", th.Count.Layer(f.Layer), th.Count.Head(f.Head), strings.TrimSpace(f.Query))
			return viz.HeadBars(texts[:f.QueryPos+1], att.Weights[f.Layer][f.Head], title, th)
		}
	case lesson.Grid:
		return grid(ch.Show.Source, nil)
	case lesson.Sink:
		return grid(0, nil)
	case lesson.KVCache:
		if len(kv.Keys) > 0 {
			return viz.KVCache(kv.Keys, kv.Values, texts, th)
		}
		return viz.ParamShares(in.Model, th)
	case lesson.MLP:
		l := ch.Figures.(lesson.MLPFigures).Layer
		return viz.MLPValues(in.Inspect.MLP[l].Values, 600, "", th)
	case lesson.Output:
		return viz.TopCandidates(run.Steps[0].Top, run.Steps[0].Chosen.ID, th)
	case lesson.Loop:
		return viz.StepProbs(run.Steps, th)
	case lesson.Counterfactual:
		if e := in.Extra; e != nil && e.Ablated != nil {
			return viz.TopCandidates(e.Ablated.First.Top, e.Ablated.First.Chosen.ID, th)
		}
		return grid(ch.Show.Source, ch.Figures.(lesson.CounterfactualFigures).Heads)
	}
	return viz.TimingBars(timings(in), bandwidthOf(in), th)
}

// timings are the prompt's run and the timing runs, as timing bars.
func timings(in lesson.Input) []viz.TimingRow {
	rows := []viz.TimingRow{viz.TimingFrom("the prompt", in.Run.Timing)}
	e := in.Extra
	if e == nil {
		return rows
	}
	for _, k := range e.Kernels {
		rows = append(rows, viz.TimingRow{Label: "The Gold-Bug, " + k.Level, PrefillTokens: k.PrefillTokens,
			PrefillSeconds: k.PrefillSeconds, DecodeTokens: k.DecodeTokens, DecodeSeconds: k.DecodeSeconds})
	}
	if e.ThinkOn != nil && e.ThinkOff != nil {
		rows = append(rows, viz.TimingFrom("thinking off", *e.ThinkOff), viz.TimingFrom("thinking on", *e.ThinkOn))
	}
	return rows
}

func bandwidthOf(in lesson.Input) float64 {
	if in.Extra != nil {
		return in.Extra.BandwidthGBs
	}
	return 0
}
