//go:build linux

package engine

import (
	"context"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"loupe/kernels"
)

// resources counts what a model can leave behind: goroutines, open file
// descriptors, and memory mappings of files under dir.
type resources struct{ goroutines, fds, maps int }

func countResources(t *testing.T, dir string) resources {
	t.Helper()
	runtime.GC()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip("no /proc/self/maps:", err)
	}
	return resources{goroutines: runtime.NumGoroutine(), fds: len(fds), maps: strings.Count(string(maps), dir)}
}

// settled waits for goroutines that are on their way out (pool workers
// parking after Close) and returns the counts once they stop falling.
func settled(t *testing.T, dir string, want resources) resources {
	var got resources
	for range 100 {
		if got = countResources(t, dir); got == want {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
	return got
}

// TestLifetime: a lesson's worth of generations — 100, stopped at random
// moments (during prefill, between tokens, before the first), with model
// switches and kernel-level and thread-count switches between them —
// leaves no goroutine, file descriptor or file mapping behind once the
// models are closed.
func TestLifetime(t *testing.T) {
	cfgA, cfgB := loadConfig(), loadConfig()
	cfgB.NumHiddenLayers, cfgB.HiddenSize, cfgB.IntermediateSize = 3, 64, 96
	dirA := writeModel(t, cfgA, randomTensors(cfgA, 5), "BF16", nil)
	dirB := writeModel(t, cfgB, randomTensors(cfgB, 6), "F32", nil)
	root := os.TempDir()
	before := countResources(t, root)
	defer kernels.SetLevel(kernels.Active())
	var levels []kernels.Level
	for _, l := range kernels.Levels() {
		if kernels.Supported(l) {
			levels = append(levels, l)
		}
	}
	rng := rand.New(rand.NewPCG(14, 1))
	prompt := strings.Repeat("The gold-bug was found on the island. ", 6)
	var m *Model
	var stops [4]int // by moment: none, before start, random time, after a random step
	for i := range 100 {
		if i%10 == 0 { // switch models
			if m != nil {
				if err := m.Close(); err != nil {
					t.Fatal(err)
				}
			}
			dir := []string{dirA, dirB}[i/10%2]
			var err error
			if m, err = Load(dir, LoadOptions{Threads: 1 + rng.IntN(3)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := kernels.SetLevel(levels[rng.IntN(len(levels))]); err != nil {
			t.Fatal(err)
		}
		if rng.IntN(4) == 0 {
			m.SetThreads(1 + rng.IntN(3))
		}
		ctx, cancel := context.WithCancel(context.Background())
		opt := DefaultGenerateOptions()
		opt.Settings.MaxTokens = 4 + rng.IntN(10)
		moment := rng.IntN(4)
		stopAt := rng.IntN(opt.Settings.MaxTokens)
		switch moment {
		case 1:
			cancel()
		case 2: // a random moment, prefill or decode
			time.AfterFunc(time.Duration(rng.IntN(3000))*time.Microsecond, cancel)
		}
		steps := 0
		run, err := m.Generate(ctx, prompt, opt, func(e Event) {
			if e.Step != nil {
				steps++
				if moment == 3 && steps > stopAt {
					cancel()
				}
			}
		})
		cancel()
		if err != nil {
			t.Fatalf("generation %d: %v", i, err)
		}
		if moment > 0 && run.StopReason == "cancelled" {
			stops[moment]++
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	after := settled(t, root, before)
	t.Logf("cancelled runs by moment (before start, at a random time, after a random step): %v; before %+v, after %+v", stops[1:], before, after)
	if after != before {
		t.Errorf("after 100 generations and closing the models: %+v, before: %+v", after, before)
	}
	if stops[1] == 0 || stops[3] == 0 {
		t.Errorf("no run was stopped before the start or during decode: %v", stops)
	}
}
