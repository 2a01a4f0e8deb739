package views

import (
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"loupe/engine/perf"
	"loupe/i18n"
	"loupe/session"
	"loupe/trace"
	"loupe/trace/stats"
	"loupe/viz"
)

// TimingLine describes one generation: prefill (reading) and decode
// (writing) with tokens, seconds, tokens/s and share of the wait, then the
// decode bandwidth against the measured one (bw ≤ 0: unknown).
func TimingLine(t trace.Timing, bw float64, measuring bool) string {
	total := t.PrefillSeconds + t.DecodeSeconds
	share := func(s float64) float64 {
		if total <= 0 {
			return 0
		}
		return s / total
	}
	var b strings.Builder
	b.WriteString(tr("views.timing.line", i18n.Args{"P": thousands(t.PrefillTokens), "PTime": nums().Duration(t.PrefillSeconds),
		"PRate": nums().Fixed(stats.Rate(t.PrefillTokens, t.PrefillSeconds), 0), "PShare": nums().Percent(share(t.PrefillSeconds)),
		"D": thousands(t.DecodeTokens), "DTime": nums().Duration(t.DecodeSeconds),
		"DRate": nums().Fixed(stats.Rate(t.DecodeTokens, t.DecodeSeconds), 1), "DShare": nums().Percent(share(t.DecodeSeconds))}))
	if t.Kernels != "" {
		b.WriteString("\n" + tr("views.timing.kernels", i18n.Args{"Kernels": t.Kernels, "Arith": Lang.Arithmetic(t.Arithmetic)}))
	}
	gbs := stats.DecodeGBs(t)
	switch {
	case !(gbs > 0):
	case bw > 0 && gbs > bw:
		// Only a model small enough to stay in the CPU caches is read
		// faster than memory streams: its decode is not memory-bound.
		b.WriteString("\n" + tr("views.timing.cached", i18n.Args{"Read": nums().GBs(gbs), "BW": nums().GBs(bw)}))
	case bw > 0:
		b.WriteString("\n" + tr("views.timing.share", i18n.Args{"Read": nums().GBs(gbs), "Share": nums().Percent(gbs / bw), "BW": nums().GBs(bw)}))
	case measuring:
		b.WriteString("\n" + tr("views.timing.measuring", i18n.Args{"Read": nums().GBs(gbs)}))
	default:
		b.WriteString("\n" + tr("views.timing.unknown", i18n.Args{"Read": nums().GBs(gbs)}))
	}
	return b.String()
}

// TimingPanel shows every generation since start as a bar split into
// prefill and decode, on a common time scale.
type TimingPanel struct {
	widget.BaseWidget
	panelBase // counting, theme, export buttons (SetCount, SetTheme, SetOnExport)

	Title *widget.Label
	// Ceiling says where the machine's bandwidth figure comes from (when,
	// how many probes, under load or not); Remeasure probes it again.
	Ceiling     *widget.Label
	Remeasure   *widget.Button
	OnRemeasure func()
	list        *fyne.Container
	rows        *RowScroll // the title, the bandwidth line and the list
	box         *fyne.Container
	runs        []trace.Timing
	bw          float64 // the read bandwidth the runs were set against, GB/s
	shown       string  // what ShowView drew last: runs, names, bandwidth
}

// NewTimingPanel makes an empty panel.
func NewTimingPanel() *TimingPanel {
	p := &TimingPanel{Title: boldLabel(tr("views.timing.none", nil)), Ceiling: widget.NewLabel("")}
	p.Ceiling.Wrapping = fyne.TextWrapWord
	p.Remeasure = widget.NewButton(tr("views.timing.remeasure", nil), func() {
		if p.OnRemeasure != nil {
			p.OnRemeasure()
		}
	})
	p.list = container.NewVBox()
	ceiling := container.NewBorder(nil, nil, nil, p.Remeasure, p.Ceiling)
	p.rows = NewRowScroll(container.NewVBox(p.Title, ceiling, p.list))
	p.box = container.NewBorder(exportButtons(func(f string) {
		if p.OnExport != nil {
			p.OnExport(f)
		}
	}), nil, nil, nil, p.rows)
	p.ExtendBaseWidget(p)
	return p
}

// showCeiling says where the bandwidth figure comes from; the button is
// off while measuring or while the engine runs (a probe then would time
// the contention).
func (p *TimingPanel) showCeiling(v session.View) (changed bool) {
	text := CeilingText(v.Ceiling, v.Ceiling.Best.BestGBs > 0, v.Measuring, time.Now())
	if v.Beside.BestGBs > 0 {
		text = BesideText(v.Beside) + " " + text
	}
	changed = text != p.Ceiling.Text
	p.Ceiling.SetText(text)
	if !v.Measuring && !v.Running {
		p.Remeasure.Enable()
	} else {
		p.Remeasure.Disable()
	}
	return changed
}

// BesideText says that decode is set against b, a probe of the open
// model's own weights.
func BesideText(b perf.Bandwidth) string {
	return tr("app.bw.beside", i18n.Args{"GBs": nums().GBs(b.BestGBs), "Threads": b.Threads, "When": b.When.Local().Format("15:04")})
}

// CeilingText says what the bandwidth figure is worth: its probes and
// dates, and whether it is old or was taken under load (ok: there is a
// figure; measuring: a probe runs now).
func CeilingText(c perf.Ceiling, ok, measuring bool, now time.Time) string {
	var s string
	switch {
	case !ok && measuring:
		return tr("app.bw.measuring", nil)
	case !ok:
		return tr("app.bw.unmeasured", nil)
	default:
		b := c.Best
		s = tr("app.bw.best", i18n.Args{"GBs": nums().GBs(b.BestGBs), "Threads": b.Threads,
			"Probes": Lang.N("unit.probes", len(c.Probes), i18n.Args{"N": len(c.Probes)}), "When": b.When.Local().Format("2006-01-02 15:04")})
		if n := len(c.Probes); n > 1 && !c.Probes[0].When.Equal(b.When) {
			s += tr("app.bw.latest", i18n.Args{"When": c.Probes[0].When.Local().Format("2006-01-02 15:04"), "GBs": nums().GBs(c.Probes[0].BestGBs)})
		}
		s += ")."
	}
	if c.Stale(now) {
		s += tr("app.bw.stale", i18n.Args{"Days": int(now.Sub(c.Best.When).Hours() / 24)})
	}
	if c.UnderLoad() {
		s += tr("app.bw.load", i18n.Args{"Cores": nums().Fixed(*c.Best.OthersBusy, 1)})
	}
	if measuring {
		s += tr("app.bw.again", nil)
	}
	return s
}

// CreateRenderer implements fyne.Widget.
func (p *TimingPanel) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(p.box) }

// Runs is the number of generations shown.
func (p *TimingPanel) Runs() int { return len(p.runs) }

// display shows runs (oldest first) under their labels ("" or missing:
// "run N"); bw is the measured read bandwidth in GB/s (≤ 0: unknown,
// measuring says whether it is on its way).
func (p *TimingPanel) display(runs []trace.Timing, labels []string, bw float64, measuring bool) {
	p.runs, p.bw = runs, bw
	p.list.RemoveAll()
	if len(runs) == 0 {
		p.Title.SetText(tr("views.timing.none", nil))
		return
	}
	p.Title.SetText(tr("views.timing.title", nil))
	longest := 0.0
	for _, t := range runs {
		longest = max(longest, t.PrefillSeconds+t.DecodeSeconds)
	}
	for i := len(runs) - 1; i >= 0; i-- {
		t := runs[i]
		bars := NewBars()
		bars.LabelWidth = 110
		bars.Colors = []fyne.ThemeColorName{theme.ColorNameWarning, theme.ColorNamePrimary}
		segs := []float64{0, 0}
		if longest > 0 {
			segs = []float64{t.PrefillSeconds / longest, t.DecodeSeconds / longest}
		}
		if t.ThinkingTokens > 0 && longest > 0 { // decode split: the draft, then the answer
			bars.Colors = []fyne.ThemeColorName{theme.ColorNameWarning, theme.ColorNameSuccess, theme.ColorNamePrimary}
			segs = []float64{t.PrefillSeconds / longest, t.ThinkingSeconds / longest, (t.DecodeSeconds - t.ThinkingSeconds) / longest}
		}
		label := tr("views.timing.run", i18n.Args{"N": i + 1})
		if i < len(labels) && labels[i] != "" {
			label, bars.LabelWidth = labels[i], 250 // monospace "run 12 · think off"
		}
		bars.SetBars([]Bar{{Label: label, Segments: segs,
			Value: nums().Duration(t.PrefillSeconds + t.DecodeSeconds), Highlight: i == len(runs)-1}})
		text := TimingLine(t, bw, measuring)
		if th := ThinkingLine(t); th != "" {
			text += "\n" + th
		}
		if t.ReusedTokens > 0 {
			text += "\n" + tr("views.timing.reused", i18n.Args{"N": thousands(t.ReusedTokens)})
		}
		line := widget.NewLabel(text)
		line.Wrapping = fyne.TextWrapWord
		p.list.Add(bars)
		p.list.Add(line)
	}
	legend := widget.NewRichTextFromMarkdown(tr("views.timing.legend", nil))
	legend.Wrapping = fyne.TextWrapWord // one line would widen the panel past the window
	p.list.Add(legend)
}

// Figure is one bar a run, split into prefill and decode.
func (p *TimingPanel) Figure() viz.Figure {
	rows := make([]viz.TimingRow, len(p.runs))
	for i, t := range p.runs {
		rows[i] = viz.TimingFrom(tr("views.timing.run", i18n.Args{"N": i + 1}), t)
	}
	return viz.TimingBars(rows, p.bw, figTheme(p.FigureTheme))
}

// CSV writes one row a run.
func (p *TimingPanel) CSV(d *CSV) error {
	d.Row("run", "prefill_tokens", "prefill_seconds", "decode_tokens", "decode_seconds", "decode_tokens_per_second", "bytes_per_token")
	for i, t := range p.runs {
		d.Row(i+1, t.PrefillTokens, t.PrefillSeconds, t.DecodeTokens, t.DecodeSeconds, stats.Rate(t.DecodeTokens, t.DecodeSeconds), t.BytesPerToken)
	}
	return nil
}

// Tab is the tab's title.
func (p *TimingPanel) Tab() string { return tr("views.tab.timing", nil) }

// Name is the panel's name for exports and --tab.
func (p *TimingPanel) Name() string { return "timing" }

// Object is what the tab holds.
func (p *TimingPanel) Object() fyne.CanvasObject { return p }

// ShowView draws the runs of v, their names and the bandwidth they are
// set against. The runs do not change with the selection: they are drawn
// again only when they, their names or the bandwidth changed.
func (p *TimingPanel) ShowView(v session.View) {
	changed := p.showCeiling(v)
	if key := fmt.Sprint(v.Timings, v.Labels, v.Bandwidth, v.Measuring); key != p.shown {
		p.shown = key
		p.display(v.Timings, v.Labels, v.Bandwidth, v.Measuring)
		changed = true
	}
	if changed {
		p.rows.Relayout() // the bandwidth line grown to three lines was covered by the first run's bar
	}
}

// Parts are the objects the panel lays out.
func (p *TimingPanel) Parts() []fyne.CanvasObject { return parts(p.box) }

var _ Panel = (*TimingPanel)(nil)
