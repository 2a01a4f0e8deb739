//go:build linux

package app

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"loupe/assets"
	"loupe/engine/genmodel"
)

// openFiles counts the process's file descriptors and its mappings of
// files under the dirs.
func openFiles(t *testing.T, dirs ...string) (fds, maps int) {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	m, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip("no /proc/self/maps")
	}
	for _, d := range dirs {
		maps += strings.Count(string(m), d)
	}
	return len(ents), maps
}

// TestWindowLifetime: a lesson in the window — 100 generations on the real
// engine, most stopped at a random moment with Stop, with model switches
// (demo model ⇄ a generated one) and kernel-level switches between them —
// leaves no goroutine, file descriptor or model mapping behind, and the
// window ends idle.
func TestWindowLifetime(t *testing.T) {
	demo, err := assets.DemoModelDir()
	if err != nil {
		t.Skip("no demo model:", err)
	}
	other := filepath.Join(t.TempDir(), "tiny")
	if err := genmodel.Write(other, "tiny", 3, "bf16"); err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, Options{Model: demo}, loadEngine)
	if h.u.backend == nil {
		t.Fatalf("demo model not loaded: %s", h.u.controls.Status.Text)
	}
	h.generate("First Citizen:", 3) // warm: the pools, caches and panels exist
	runtime.GC()
	g0 := runtime.NumGoroutine()
	fd0, maps0 := openFiles(t, demo, other)
	rng := rand.New(rand.NewPCG(100, 1))
	levels := kernelOptions()
	stopped := 0
	for i := range 100 {
		if i%25 == 24 {
			path := []string{other, demo}[i/25%2]
			onUI(func() { h.u.openModel(path) })
			h.wait()
			if h.u.st.Info.Path != path {
				t.Fatalf("switch %d: %s loaded, want %s (%s)", i, h.u.st.Info.Path, path, h.u.controls.Status.Text)
			}
		}
		level := levels[rng.IntN(len(levels))]
		onUI(func() { // every widget call on the UI goroutine, as in the app
			h.u.controls.Kernels.SetSelected(level)
			h.u.controls.Prompt.SetText("ROMEO:\nBut soft, what light through yonder window breaks?")
			h.u.controls.MaxTokens.SetText("12")
			test.Tap(h.u.controls.Generate)
		})
		if rng.IntN(5) > 0 {
			time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
			onUI(h.u.stop) // as a user would: on the UI goroutine
			stopped++
		}
		h.wait()
		if h.u.st.Running {
			t.Fatalf("generation %d: still running after it reported idle", i)
		}
	}
	onUI(func() { h.u.openModel(demo) }) // back where the count started
	h.wait()
	var g, fds, maps int
	for range 100 { // pool workers of closed models park, then exit
		runtime.GC()
		g = runtime.NumGoroutine()
		fds, maps = openFiles(t, demo, other)
		if g <= g0 && fds <= fd0 && maps <= maps0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("%d generations, %d stopped: goroutines %d → %d, fds %d → %d, model mappings %d → %d", 100, stopped, g0, g, fd0, fds, maps0, maps)
	if g > g0 || fds > fd0 || maps > maps0 {
		t.Errorf("left behind: goroutines %d → %d, fds %d → %d, mappings %d → %d", g0, g, fd0, fds, maps0, maps)
	}
}
