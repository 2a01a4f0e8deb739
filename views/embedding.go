package views

import (
	"errors"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"loupe/i18n"
	"loupe/session"
	"loupe/trace"
	"loupe/trace/stats"
	"loupe/viz"
)

// EmbeddingPanel shows the selected token's row of the embedding table:
// its index and the table's shape, the first numbers as the article
// prints them, every number as a strip and as bars, simple statistics, and
// whether the table is also the output head.
type EmbeddingPanel struct {
	widget.BaseWidget
	panelBase // counting, theme, export buttons (SetCount, SetTheme, SetOnExport)

	Title, Shape, First, Stats, Tied *widget.Label
	fig                              *figureBox
	box                              *fyne.Container

	tok    trace.Token
	values []float32
	rows   int  // of the table: the vocabulary
	tied   bool // the table is the output head too
}

// NewEmbeddingPanel makes an empty panel.
func NewEmbeddingPanel() *EmbeddingPanel {
	p := &EmbeddingPanel{
		Title: boldLabel(tr("views.emb.start", nil)),
		Shape: widget.NewLabel(""), First: caption(""), Stats: widget.NewLabel(""), Tied: caption(""),
		fig: newFigureBox(1000, 520),
	}
	read := caption(tr("views.emb.read", nil))
	p.box = container.NewBorder(exportButtons(func(f string) {
		if p.OnExport != nil {
			p.OnExport(f)
		}
	}), read, nil, nil, NewRowScroll(container.NewVBox(p.Title, p.Shape, p.First, p.Stats, p.Tied, p.fig.img)))
	p.ExtendBaseWidget(p)
	return p
}

// CreateRenderer implements fyne.Widget.
func (p *EmbeddingPanel) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(p.box) }

// Display shows the row values of token tok from a table of rows rows.
func (p *EmbeddingPanel) Display(tok trace.Token, values []float32, rows int, tied bool) {
	p.tok, p.values, p.rows, p.tied = tok, values, rows, tied
	if len(values) == 0 {
		p.Title.SetText(tr("views.emb.none", i18n.Args{"Text": clip(Shown(tok.Text), 24), "ID": tok.ID}))
		p.Shape.SetText("")
		p.First.SetText("")
		p.Stats.SetText("")
		p.Tied.SetText("")
		p.fig.show(nil)
		return
	}
	p.Title.SetText(tr("views.emb.title", i18n.Args{"Text": clip(Shown(tok.Text), 24), "Pos": tok.Pos, "N": thousands(len(values))}))
	p.Shape.SetText((viz.Theme{Lang: Lang}).RowShape(tok.ID, rows, len(values)) + tr("views.emb.row_is_id", nil))
	first := nums().FirstNumbers(values, 12)
	if len(values) > 12 {
		first += tr("views.emb.numbers", i18n.Args{"N": thousands(len(values))})
	}
	p.First.SetText(first)
	st := stats.StatsOf(values)
	p.Stats.SetText(tr("views.emb.stats", i18n.Args{"Norm": nums().Fixed(st.Norm, 3), "Min": nums().Fixed(st.Min, 3), "Max": nums().Fixed(st.Max, 3), "Mean": nums().Fixed(st.MeanAbs, 4)}))
	p.Tied.SetText((viz.Theme{Lang: Lang}).TiedNote(tied))
	p.fig.show(p.figure(rows, tied))
}

func (p *EmbeddingPanel) figure(rows int, tied bool) viz.Figure {
	return viz.EmbeddingRow(p.values, viz.EmbeddingRowInfo{Token: p.tok.Text, Row: p.tok.ID, Rows: rows, Tied: tied}, figTheme(p.FigureTheme))
}

// Figure is the figure shown (for exports), nil before a token.
func (p *EmbeddingPanel) Figure() viz.Figure { return orNothing(p.fig.fig, p.FigureTheme) }

// Values are the numbers shown.
func (p *EmbeddingPanel) Values() (trace.Token, []float32) { return p.tok, p.values }

// CSV writes the token's row of the embedding table.
func (p *EmbeddingPanel) CSV(d *CSV) error {
	if len(p.values) == 0 {
		return errors.New("no embedding row shown: select a token")
	}
	d.KV("token position", p.tok.Pos, p.tok.Text)
	d.KV("token id (the row)", p.tok.ID)
	d.KV("table shape (rows × numbers)", p.rows, len(p.values))
	d.KV("tied to the output head", p.tied)
	st := stats.StatsOf(p.values)
	d.KV("norm", st.Norm)
	d.KV("min", st.Min)
	d.KV("max", st.Max)
	d.KV("mean |x|", st.MeanAbs)
	d.Row("index", "value")
	for i, v := range p.values {
		d.Row(i, v)
	}
	return nil
}

// Tab is the tab's title.
func (p *EmbeddingPanel) Tab() string { return tr("views.tab.embedding", nil) }

// Name is the panel's name for exports and --tab.
func (p *EmbeddingPanel) Name() string { return "embedding" }

// Object is what the tab holds.
func (p *EmbeddingPanel) Object() fyne.CanvasObject { return p }

// ShowView draws the selection of v.
func (p *EmbeddingPanel) ShowView(v session.View) {
	q, ok := tokenAt(v)
	if !ok {
		return
	}
	tok := v.Tokens[q]
	var row []float32
	if v.Embedding != nil {
		row = v.Embedding(tok.ID) // read-only weights: safe beside a generation
	}
	p.Display(tok, row, v.Info.Vocab, v.Info.TiedEmbeddings)
}

// Parts are the objects the panel lays out.
func (p *EmbeddingPanel) Parts() []fyne.CanvasObject { return parts(p.box) }

var _ Panel = (*EmbeddingPanel)(nil)
