package views

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"loupe/engine/perf"
	"loupe/session"
	"loupe/trace"
)

// The Timing panel's bandwidth line grows from one line to three when a
// probe of the model's weights comes in (a long French line at 1,366 ×
// 768 took three): the runs below move down instead of covering it.
func TestTimingCeilingLineGrows(t *testing.T) {
	newTestApp(t)
	p := NewTimingPanel()
	w := test.NewWindow(p)
	w.SetPadded(false)
	w.Resize(fyne.NewSize(640, 500))
	now := time.Now()
	busy := 1.4
	machine := perf.Bandwidth{BestGBs: 36.8, Threads: 2, When: now.Add(-3 * time.Hour)}
	latest := perf.Bandwidth{BestGBs: 17.4, Threads: 2, When: now, Source: perf.SourceWeights, OthersBusy: &busy}
	runs := []trace.Timing{{PrefillTokens: 17, PrefillSeconds: 0.2, DecodeTokens: 32, DecodeSeconds: 1.8}}
	v := session.View{Timings: runs, Labels: []string{""}, Bandwidth: 36.8,
		Ceiling: perf.Ceiling{Best: machine, Probes: []perf.Bandwidth{machine}}}
	p.ShowView(v)
	v.Ceiling = perf.Ceiling{Best: machine, Probes: []perf.Bandwidth{latest, machine, machine, machine}}
	v.Beside, v.Bandwidth = latest, latest.BestGBs
	p.ShowView(v)
	for _, o := range Layout(w.Content(), w.Canvas().Size(), nil) {
		if o.Kind == "text" && o.Visible && o.Clipped {
			t.Errorf("%q cut: %.0f high at %.0f", o.Text, o.Size.Height, o.Pos.Y)
		}
	}
	one := widget.NewLabel("x").MinSize().Height
	if grown := p.Ceiling.Size().Height; grown < 2*one {
		t.Fatalf("the bandwidth line is %.0f high, one line %.0f: the test wants it on several", grown, one)
	}
}
