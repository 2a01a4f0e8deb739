package app

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"loupe/trace"
	"loupe/trace/stats"
	"loupe/views"
)

// Every panel exports its numbers as CSV. The file starts with a few
// "# key",value records naming the model, the prompt, the positions and the
// layer/head shown (comment lines for readers that take '#' as one, e.g.
// pandas.read_csv(comment="#")), then an empty line, then one table with a
// header row.

// csvDoc collects the header records and the table of one export.
type csvDoc struct {
	meta  [][]string
	table [][]string
}

func (d *csvDoc) kv(k string, v ...any) {
	rec := []string{"# " + k}
	for _, x := range v {
		rec = append(rec, fmt.Sprint(x))
	}
	d.meta = append(d.meta, rec)
}

func (d *csvDoc) row(v ...any) {
	rec := make([]string, len(v))
	for i, x := range v {
		switch x := x.(type) {
		case float64: // the shortest text that reads back as the same number
			rec[i] = strconv.FormatFloat(x, 'g', -1, 64)
		case float32:
			rec[i] = strconv.FormatFloat(float64(x), 'g', -1, 32)
		default:
			rec[i] = fmt.Sprint(x)
		}
	}
	d.table = append(d.table, rec)
}

func (d *csvDoc) bytes() ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	for _, r := range d.meta {
		w.Write(r)
	}
	w.Flush()
	b.WriteString("\n")
	for _, r := range d.table {
		w.Write(r)
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

// csvHead names the model, the prompt and the counting of layers and heads.
func (u *UI) csvHead(panel string) *csvDoc {
	d := &csvDoc{}
	d.kv("loupe", panel)
	d.kv("model", u.info.Name, u.info.Path)
	prompt := ""
	if u.lastRun != nil {
		prompt = u.lastRun.Prompt
		if len(u.lastRun.Settings.Ablate) > 0 {
			d.kv("heads switched off (layer:head from 0)", trace.FormatHeads(u.lastRun.Settings.Ablate, 0))
		}
	}
	d.kv("prompt", prompt)
	d.kv("layers and heads counted from", u.headBase())
	return d
}

func (u *UI) csvToken(d *csvDoc, what string, pos int) {
	text := ""
	if pos >= 0 && pos < len(u.tokens) {
		text = u.tokens[pos].Text
	}
	d.kv(what+" position", pos, text)
}

// csvData is the CSV of one panel for the current selection.
func (u *UI) csvData(panel string) ([]byte, error) {
	if panel == "experiments" {
		return u.experimentCSV()
	}
	d := u.csvHead(panel)
	switch panel {
	case "attention", "head":
		a, ok := u.attn.Shown() // captured, or recomputed on demand
		if !ok {
			a, ok = stats.AttentionAt(u.attention, lastCaptured(u.attention, u.query))
		}
		if !ok {
			return nil, errors.New("no attention captured for this token")
		}
		u.csvToken(d, "query", a.QueryPos)
		if panel == "head" {
			l, h := u.attn.OpenedHead()
			if l < 0 || l >= len(a.Weights) || h < 0 || h >= len(a.Weights[l]) {
				return nil, errors.New("no head open")
			}
			d.kv("layer", l+u.headBase())
			d.kv("head", h+u.headBase())
			d.row("key_position", "token", "share")
			for k, w := range a.Weights[l][h] {
				d.row(k, u.tokenText(k), w)
			}
			break
		}
		src := u.attn.Source()
		u.csvToken(d, "source", src)
		d.row("layer", "head", "share_on_source")
		for l, row := range stats.SourceGrid(a, src) {
			for h, v := range row {
				d.row(l+u.headBase(), h+u.headBase(), v)
			}
		}
	case "next-token":
		s, ok := u.next.Step()
		if !ok {
			return nil, errors.New("no candidates recorded for this token")
		}
		u.csvToken(d, "generated", s.Pos)
		d.row("rank", "id", "text", "p", "chosen")
		for i, c := range s.Top {
			d.row(i+1, c.ID, c.Text, c.P, c.ID == s.Chosen.ID)
		}
	case "timing":
		d.row("run", "prefill_tokens", "prefill_seconds", "decode_tokens", "decode_seconds", "decode_tokens_per_second", "bytes_per_token")
		for i, t := range u.timings {
			d.row(i+1, t.PrefillTokens, t.PrefillSeconds, t.DecodeTokens, t.DecodeSeconds, stats.Rate(t.DecodeTokens, t.DecodeSeconds), t.BytesPerToken)
		}
	case "model":
		d.row("field", "value")
		for _, r := range views.ModelRows(u.info, cpuLine(), kernelLine()) {
			d.row(r[0], r[1])
		}
	case "mlp":
		m, ok := u.mlp.Shown()
		if !ok {
			return nil, errors.New("no MLP values for this token and layer")
		}
		u.csvToken(d, "query", m.Pos)
		d.kv("layer", m.Layer+u.headBase())
		d.row("index", "silu_gate_times_up")
		for i, v := range m.Values {
			d.row(i, v)
		}
	case "compare":
		return u.compareCSV(d)
	default:
		if ok, err := u.insideCSV(panel, d); !ok || err != nil {
			return nil, cmp.Or(err, fmt.Errorf("no panel %q", panel))
		}
	}
	return d.bytes()
}

// compareCSV writes the compared step of A and B and the three grids.
func (u *UI) compareCSV(d *csvDoc) ([]byte, error) {
	c, ok := u.compare.Comparison()
	if !ok {
		return nil, errors.New("nothing compared yet")
	}
	d.kv("run A prompt", c.A.Prompt)
	d.kv("run B prompt", c.B.Prompt)
	d.kv("run A heads switched off (from 0)", trace.FormatHeads(c.A.Settings.Ablate, 0))
	d.kv("run B heads switched off (from 0)", trace.FormatHeads(c.B.Settings.Ablate, 0))
	d.kv("step position in A", c.Delta.Pos, c.Delta.Token.Text)
	d.kv("step position in B", c.Delta.PosB)
	d.kv("first divergence in A", c.FirstA)
	d.kv("query position in A", c.QueryA)
	d.kv("source position in A", c.SourceA)
	d.kv("query position in B", c.QueryB)
	d.kv("source position in B", c.SourceB)
	d.row("table", "run", "rank_or_layer", "id_or_head", "text", "value")
	d.row("delta", "A", "", c.Delta.Token.ID, c.Delta.Token.Text, c.Delta.Token.P)
	if c.Delta.InB {
		d.row("delta", "B", "", c.Delta.Token.ID, c.Delta.Token.Text, c.Delta.PB)
	}
	for i, x := range c.Delta.StepA.Top {
		d.row("top10", "A", i+1, x.ID, x.Text, x.P)
	}
	for i, x := range c.Delta.StepB.Top {
		d.row("top10", "B", i+1, x.ID, x.Text, x.P)
	}
	if c.HasGrids {
		for _, g := range []struct {
			name string
			v    [][]float64
		}{{"A", c.GridA}, {"B", c.GridB}, {"B-A", c.Diff}} {
			for l, row := range g.v {
				for h, v := range row {
					d.row("grid", g.name, l+u.headBase(), h+u.headBase(), "", v)
				}
			}
		}
	}
	return d.bytes()
}

func (u *UI) tokenText(pos int) string {
	if pos >= 0 && pos < len(u.tokens) {
		return u.tokens[pos].Text
	}
	return ""
}

// readCSVTable parses an export back: the header records and the table.
func readCSVTable(data []byte) (meta, table [][]string, err error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return nil, nil, err
	}
	for _, rec := range recs {
		if k, ok := strings.CutPrefix(rec[0], "# "); ok && table == nil {
			meta = append(meta, append([]string{k}, rec[1:]...))
		} else {
			table = append(table, rec)
		}
	}
	if len(meta) == 0 || len(table) == 0 {
		return nil, nil, errors.New("want # header records, then a table")
	}
	return meta, table, nil
}
