package app

import (
	"errors"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	nativedialog "github.com/sqweek/dialog"

	"loupe/lesson"
	"loupe/trace"
	"loupe/trace/stats"
	"loupe/viz"
)

// File › Save lesson…: one HTML page a teacher can hand out, the texts of
// every chapter with the model, the prompt and the date, and beside it a
// PNG figure per chapter (NAME-ID.png), drawn light for paper.

// saveLesson asks where to write the page.
func (u *UI) saveLesson() {
	if u.les.l == nil {
		u.fail("Nothing to save", errors.New("open the lesson (L) on a finished run first"))
		return
	}
	l, in := u.les.l, u.les.in
	u.pick(func() (string, error) {
		return nativedialog.File().Title("Save the lesson").Filter("HTML", "html").SetStartFile("loupe-lesson.html").Save()
	}, func(use func(string)) {
		d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
			if err == nil && w != nil {
				w.Close()
				use(w.URI().Path())
			}
		}, u.win)
		d.SetFileName("loupe-lesson.html")
		d.Show()
	}, func(path string) {
		if filepath.Ext(path) == "" {
			path += ".html"
		}
		if err := writeLesson(path, l, in, u.lessonKV(in), time.Now()); err != nil {
			u.fail("Could not save the lesson", err)
			return
		}
		u.controls.Status.SetText("Saved " + path + " and its figures beside it")
	})
}

// lessonKV are the cached keys and values of the attention chapter's layer
// and K/V head over the prompt, for the kv-cache figure (empty when the
// backend cannot read them).
func (u *UI) lessonKV(in lesson.Input) trace.KVRows {
	ins, ok := u.backend.(Inspector)
	if !ok || in.Inspect == nil {
		return trace.KVRows{}
	}
	f := in.Inspect.Attention
	l, h := 0, 0
	if ch := lessonAttention(in); ch != nil {
		l, h = ch.Layer, ch.Head
	}
	group := h / max(1, in.Model.Heads/max(1, in.Model.KVHeads))
	if n := f.QueryPos + 1; ins.CachedTokens() >= n && in.Model.HasAttention(l) {
		return ins.KVRows(l, group, n)
	}
	return trace.KVRows{}
}

// lessonAttention is the attention chapter's figures of in.
func lessonAttention(in lesson.Input) *lesson.AttentionFigures {
	l, err := lesson.Build(in)
	if err != nil {
		return nil
	}
	if a, ok := l.Chapter(lesson.Attention).Figures.(lesson.AttentionFigures); ok && a.Layer >= 0 {
		return &a
	}
	return nil
}

// writeLesson writes the page at path and the figures beside it.
func writeLesson(path string, l *lesson.Lesson, in lesson.Input, kv trace.KVRows, now time.Time) error {
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
		png, err := renderFigure(lessonFigure(ch, in, kv, th), "png")
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
	err = lessonPage.Execute(f, map[string]any{"Lesson": l, "Model": in.Model, "Date": now.Format("2 January 2006, 15:04"), "Sections": secs})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

var lessonPage = template.Must(template.New("lesson").Parse(`<!DOCTYPE html>
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

// lessonFigure is a chapter's figure: what its panel shows, drawn
// headless from the lesson's input.
func lessonFigure(ch lesson.Chapter, in lesson.Input, kv trace.KVRows, th viz.Theme) viz.Figure {
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
	return viz.TimingBars(lessonTimings(in), bandwidthOf(in), th)
}

// lessonTimings are the prompt's run and the timing runs, as timing bars.
func lessonTimings(in lesson.Input) []viz.TimingRow {
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
