//go:build cgo && linux

package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childEnv makes the test binary the window itself (TestMain), so a test
// can start the window as its own process and signal it.
const childEnv = "LOUPE_TEST_WINDOW_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// xvfb starts a virtual screen of 1366 × 768 and returns its DISPLAY,
// once the server says it is ready (-displayfd); skips without Xvfb.
func xvfb(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("Xvfb")
	if err != nil {
		t.Skip("no Xvfb to open the window on")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	x := exec.Command(bin, "-displayfd", "3", "-screen", "0", "1366x768x24", "-nolisten", "tcp")
	x.ExtraFiles = []*os.File{w}
	if err := x.Start(); err != nil {
		t.Skip("Xvfb does not start:", err)
	}
	w.Close()
	t.Cleanup(func() { x.Process.Kill(); x.Wait() })
	line, err := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if err != nil {
		t.Skip("Xvfb gave no display:", err)
	}
	return ":" + strings.TrimSpace(line)
}

// TestWindowExitsOnSIGTERM: the window, on the demo model after an
// answer (the bandwidth probe may run in the background), leaves within
// a bounded time when it gets SIGTERM, through its own closing (exit
// status 0), not killed by the signal.
func TestWindowExitsOnSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("opens the window")
	}
	display := xvfb(t)
	dir := t.TempDir()
	shot := filepath.Join(dir, "shot.png")
	cmd := exec.Command(os.Args[0], "--generate", "--prompt", "My cat is purple", "--max-tokens", "40", "--screenshot", shot)
	cmd.Env = append(os.Environ(), childEnv+"=1", "DISPLAY="+display, "WAYLAND_DISPLAY=",
		"HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "screenshot saved") {
				close(ready)
				break
			}
		}
		for sc.Scan() {
		}
		exited <- cmd.Wait()
	}()
	deadline := time.After(2 * time.Minute) // generous: the machine may be loaded
	select {
	case <-ready:
	case err := <-exited:
		t.Fatalf("the window ended before its first answer: %v\n%s", err, stderr.String())
	case <-deadline:
		cmd.Process.Kill()
		t.Fatalf("no answer on screen after 2 minutes\n%s", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	bound := time.After(30 * time.Second) // signalGrace is 8 s; the rest is the machine's load
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("after SIGTERM the window exited with %v, want status 0 from its own closing\n%s", err, stderr.String())
		}
	case <-bound:
		cmd.Process.Kill()
		t.Fatalf("the window still ran 30 s after SIGTERM\n%s", stderr.String())
	}
}
