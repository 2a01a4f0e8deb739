package app

import (
	"fmt"

	"loupe/trace"
	"loupe/views"
)

// Every panel exports its numbers as CSV (views.Exporter): the file starts
// with "# key",value records naming the model, the prompt and the counting
// of layers and heads, then the panel's own records and table.

// csvHead names the model, the prompt and the counting of layers and heads.
func (u *UI) csvHead(panel string) *views.CSV {
	d := &views.CSV{}
	d.KV("loupe", panel)
	d.KV("model", u.st.Info.Name, u.st.Info.Path)
	prompt := ""
	if u.st.LastRun != nil {
		prompt = u.st.LastRun.Prompt
		if len(u.st.LastRun.Settings.Ablate) > 0 {
			d.KV("heads switched off (layer:head from 0)", trace.FormatHeads(u.st.LastRun.Settings.Ablate, 0))
		}
	}
	d.KV("prompt", prompt)
	d.KV("layers and heads counted from", u.headBase())
	return d
}

// wholeCSV is an exporter that writes its file whole, in a format of its
// own (the experiments: experiment.WriteCSV).
type wholeCSV interface{ WholeCSV() ([]byte, error) }

// csvData is the CSV of one panel for the current selection.
func (u *UI) csvData(panel string) ([]byte, error) {
	e, ok := u.menus.exports[panel]
	if !ok {
		return nil, fmt.Errorf("no panel %q", panel)
	}
	if r, ok := e.(wholeCSV); ok {
		return r.WholeCSV()
	}
	d := u.csvHead(panel)
	if err := e.CSV(d); err != nil {
		return nil, err
	}
	return d.Bytes()
}
