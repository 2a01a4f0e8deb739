package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"loupe/engine"
	"loupe/kernels"
	"loupe/trace/stats"
)

func init() {
	register(Command{
		Name:    "stop-latency",
		Summary: "measure how fast Stop answers during prefill and during decode",
		Usage: `usage: loupe stop-latency [--model M] [--prompt-file FILE] [--trials N]

Starts generations and stops them at spread-out moments, during the
prefill of a long prompt and during decode of a short one, and prints how
long each took to return after Stop: at most one layer of one prefill
chunk, or one decode step.`,
		Run: runStopLatency,
	})
}

// stopTrial is one cancelled generation: when Stop was pressed, in which
// phase, and how long Generate took to return after it.
type stopTrial struct {
	phase   string // "prefill" or "decode"
	after   time.Duration
	latency time.Duration
}

// runStopLatency starts generations and cancels them at spread-out
// moments: during the prefill of the long prompt (--prompt-file, default
// the 3,139-token Gold-Bug passage) and during decode of the short one. The
// engine checks cancellation between layers and between tokens, so the
// latency is at most one layer of one prefill chunk, or one decode step.
func runStopLatency(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("stop-latency", flag.ContinueOnError)
	model := fs.String("model", "", "model folder (default: the demo model)")
	promptFile := fs.String("prompt-file", "", "long prompt for the prefill trials (default: the Gold-Bug passage)")
	threads := fs.Int("threads", 0, threadsHelp)
	trials := fs.Int("trials", 3, "stops per phase")
	if err := parseFlags(fs, args, stdout); err != nil {
		return flagExit(err, "stop-latency", stderr)
	}
	long := goldBug
	if *promptFile != "" {
		b, err := os.ReadFile(*promptFile)
		if err != nil {
			fmt.Fprintln(stderr, "loupe stop-latency:", err)
			return 1
		}
		long = string(b)
	}
	path := *model
	if path == "" {
		dir, err := demoModelDir()
		if err != nil || dir == "" {
			fmt.Fprintln(stderr, "loupe stop-latency: no --model given and no demo model:", err)
			return 1
		}
		path = dir
	}
	m, err := engine.Load(path, engine.LoadOptions{Threads: *threads})
	if err != nil {
		fmt.Fprintln(stderr, "loupe stop-latency:", err)
		return 1
	}
	defer m.Close()
	var all []stopTrial
	for i := range *trials {
		// prefill: stop after 0.5 s, 1 s, 1.5 s… of reading
		t, err := stopOnce(m, long, 1, time.Duration(i+1)*500*time.Millisecond, -1)
		if err != nil {
			fmt.Fprintln(stderr, "loupe stop-latency:", err)
			return 1
		}
		all = append(all, t)
		fmt.Fprintf(stdout, "stop %d in %s after %.2f s: returned in %.1f ms\n", i+1, t.phase, t.after.Seconds(), ms(t.latency))
	}
	for i := range *trials {
		// decode: stop at a moment inside step 3, 4, 5…
		t, err := stopOnce(m, purpleCat, 100, 0, 3+i)
		if err != nil {
			fmt.Fprintln(stderr, "loupe stop-latency:", err)
			return 1
		}
		all = append(all, t)
		fmt.Fprintf(stdout, "stop %d in %s after %.2f s: returned in %.1f ms\n", *trials+i+1, t.phase, t.after.Seconds(), ms(t.latency))
	}
	for _, phase := range []string{"prefill", "decode"} {
		var l []float64
		for _, t := range all {
			if t.phase == phase {
				l = append(l, ms(t.latency))
			}
		}
		if len(l) > 0 {
			fmt.Fprintf(stdout, "%s: %d stops, median %.1f ms, max %.1f ms (%d threads, kernels %s)\n",
				phase, len(l), stats.Median(l), slices.Max(l), m.Threads(), kernels.Active())
		}
	}
	return 0
}

// stopOnce generates from prompt and cancels either after wait (wait > 0)
// or half a step into decode step afterStep (afterStep ≥ 0), then times
// how long Generate takes to return.
func stopOnce(m *engine.Model, prompt string, maxTokens int, wait time.Duration, afterStep int) (stopTrial, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opt := engine.DefaultGenerateOptions()
	opt.Settings.MaxTokens = maxTokens
	opt.EOS = []int{}
	stopped := make(chan time.Time, 1) // written by a timer goroutine
	var prefilled, last time.Time
	steps := 0
	start := time.Now()
	stop := func() { stopped <- time.Now(); cancel() }
	if wait > 0 {
		time.AfterFunc(wait, stop)
	}
	_, err := m.Generate(ctx, prompt, opt, func(e engine.Event) {
		if e.Prefill != nil {
			prefilled = time.Now()
		}
		if e.Step != nil {
			steps++
			if afterStep >= 0 && steps == afterStep {
				step := time.Since(last)
				time.AfterFunc(step/2, stop)
			}
			last = time.Now()
		}
	})
	end := time.Now()
	if err != nil {
		return stopTrial{}, err
	}
	var at time.Time
	select {
	case at = <-stopped:
	default:
		return stopTrial{}, fmt.Errorf("the generation ended before it was stopped (%d steps)", steps)
	}
	phase := "decode"
	if prefilled.IsZero() || prefilled.After(at) {
		phase = "prefill"
	}
	return stopTrial{phase: phase, after: at.Sub(start), latency: end.Sub(at)}, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
