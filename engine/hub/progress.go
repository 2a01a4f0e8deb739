package hub

import (
	"io"
	"time"
)

// meter adds up the bytes of a pull and reports at most every 100 ms,
// with the speed over the last few seconds and the time left at it.
type meter struct {
	progress     func(Progress)
	file         string
	index, files int
	done, total  int64
	finished     bool
	note         string           // what the pull waits for, if anything
	counted      map[string]int64 // per blob: the bytes already on disk when the pull began
	last         time.Time
	samples      []sample // (time, bytes received) over the last window
}

type sample struct {
	t time.Time
	n int64
}

// speedWindow is how far back the speed looks: long enough to smooth a
// bursty connection, short enough to follow a change.
const speedWindow = 5 * time.Second

func newMeter(progress func(Progress), files int) *meter {
	return &meter{progress: progress, files: files, counted: map[string]int64{}}
}

// received records n new bytes.
func (m *meter) received(n int) {
	now := time.Now()
	m.done += int64(n)
	var got int64
	if len(m.samples) > 0 {
		got = m.samples[len(m.samples)-1].n
	}
	m.samples = append(m.samples, sample{now, got + int64(n)})
	for len(m.samples) > 2 && now.Sub(m.samples[1].t) > speedWindow {
		m.samples = m.samples[1:]
	}
	m.report(false)
}

// speed is bytes per second over the window (0 until 200 ms are seen).
func (m *meter) speed() float64 {
	if len(m.samples) < 2 {
		return 0
	}
	a, b := m.samples[0], m.samples[len(m.samples)-1]
	dt := b.t.Sub(a.t).Seconds()
	if dt < 0.2 {
		return 0
	}
	return float64(b.n-a.n) / dt
}

func (m *meter) report(force bool) {
	if m.progress == nil {
		return
	}
	now := time.Now()
	if !force && now.Sub(m.last) < 100*time.Millisecond {
		return
	}
	m.last = now
	p := Progress{File: m.file, FileIndex: m.index, Files: m.files, Done: m.done, Total: m.total,
		BytesPerSec: m.speed(), Remaining: -1, Finished: m.finished, Note: m.note}
	if p.BytesPerSec > 0 && m.total >= m.done {
		p.Remaining = time.Duration(float64(m.total-m.done) / p.BytesPerSec * float64(time.Second))
	}
	if m.finished {
		p.Remaining = 0
	}
	m.progress(p)
}

// counting wraps r so every byte read is counted.
func (m *meter) counting(r io.Reader) io.Reader { return countingReader{r, m} }

type countingReader struct {
	r io.Reader
	m *meter
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.m.received(n)
	}
	return n, err
}
