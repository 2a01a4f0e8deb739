package views

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"

	"loupe/trace"
	"loupe/viz"
)

// Exporter is a panel that exports what it shows: as a figure (PNG or SVG)
// and as the numbers behind it (CSV). The app keeps one per panel name and
// knows nothing of what each holds.
type Exporter interface {
	fyne.CanvasObject // what a PNG captures when the panel has no figure
	// Figure is the figure of what the panel shows; nil when the panel has
	// none (a PNG is then the panel as the window shows it).
	Figure() viz.Figure
	// CSV writes the panel's table under the export's header records; an
	// error says why there is nothing to export.
	CSV(d *CSV) error
}

// CSV is one export: a few "# key",value records (comment lines for readers
// that take '#' as one, e.g. pandas.read_csv(comment="#")), an empty line,
// then one table with a header row.
type CSV struct {
	meta, table [][]string
}

// KV adds a header record.
func (d *CSV) KV(k string, v ...any) {
	rec := []string{"# " + k}
	for _, x := range v {
		rec = append(rec, fmt.Sprint(x))
	}
	d.meta = append(d.meta, rec)
}

// Row adds a row of the table (the first one is its header).
func (d *CSV) Row(v ...any) {
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

// Token adds the record of a position: "query position",3," purple".
func (d *CSV) Token(what string, pos int, toks []trace.Token) {
	d.KV(what+" position", pos, tokenText(toks, pos))
}

// Bytes is the file.
func (d *CSV) Bytes() ([]byte, error) {
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

// ReadCSV parses an export back: the header records and the table.
func ReadCSV(data []byte) (meta, table [][]string, err error) {
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

// tokenText is the text of position pos, "" outside the tokens.
func tokenText(toks []trace.Token, pos int) string {
	if pos >= 0 && pos < len(toks) {
		return toks[pos].Text
	}
	return ""
}

// texts are the token pieces of toks.
func texts(toks []trace.Token) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.Text
	}
	return out
}

// orNothing is f, or for a panel that shows nothing yet a figure that
// says so.
func orNothing(f viz.Figure, th func() viz.Theme) viz.Figure {
	if f == nil {
		return viz.NoData(figTheme(th), tr("views.nothing_shown", nil))
	}
	return f
}

// Every panel with an Export button exports itself.
var _ = []Exporter{(*AttentionPanel)(nil), headExport{}, (*NextTokenPanel)(nil), (*TimingPanel)(nil), (*ModelPanel)(nil),
	(*MLPPanel)(nil), (*DeltaNetPanel)(nil), (*ComparePanel)(nil), (*EmbeddingPanel)(nil), (*KVCachePanel)(nil),
	(*LogitLensPanel)(nil), (*SamplerPanel)(nil)}
